package runtime_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// fakeAPI is an httptest server that speaks the list and watch protocol of
// core/v1 ConfigMaps in JSON, for faults a real kube-apiserver cannot be
// made to produce on demand. Tests set list and watch to answer requests;
// n counts the requests of that kind so far, from 1.
type fakeAPI struct {
	srv *httptest.Server

	mu      sync.Mutex
	lists   []time.Time // when each LIST (not a count) arrived
	watches []time.Time // when each watch arrived
	list    func(w http.ResponseWriter, r *http.Request, n int)
	watch   func(w http.ResponseWriter, r *http.Request, n int)
	// count answers the LIST of one item a Syncer makes to learn how many
	// objects to expect; nil answers 404, and the Syncer goes without.
	count func(w http.ResponseWriter, r *http.Request)
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.srv.CloseClientConnections()
		f.srv.Close()
	})
	return f
}

func (f *fakeAPI) config() *rest.Config {
	return &rest.Config{Host: f.srv.URL, QPS: -1}
}

func (f *fakeAPI) counts() (lists, watches int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.lists), len(f.watches)
}

// between returns the time from the i-th to the j-th request of a kind
// (from 1), as recorded in times.
func (f *fakeAPI) between(times *[]time.Time, i, j int) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return (*times)[j-1].Sub((*times)[i-1])
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	watching := q.Get("watch") == "true" || q.Get("watch") == "1"
	var n int
	var h func(http.ResponseWriter, *http.Request, int)
	if !watching && q.Get("limit") == "1" {
		count := f.count
		f.mu.Unlock()
		if count == nil {
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no count")
			return
		}
		count(w, r)
		return
	}
	if watching {
		f.watches = append(f.watches, time.Now())
		n, h = len(f.watches), f.watch
	} else {
		f.lists = append(f.lists, time.Now())
		n, h = len(f.lists), f.list
	}
	f.mu.Unlock()
	if h == nil {
		status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no handler")
		return
	}
	h(w, r, n)
}

// fakeCM returns a ConfigMap of namespace "ns" with a uid derived from its name.
func fakeCM(name string, rv int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), ResourceVersion: strconv.Itoa(rv)},
	}
}

// writeList answers a LIST page.
func writeList(w http.ResponseWriter, rv int, cont string, remaining *int64, items ...*corev1.ConfigMap) {
	l := corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"},
		ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(rv), Continue: cont, RemainingItemCount: remaining}}
	for _, i := range items {
		l.Items = append(l.Items, *i)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&l)
}

// startWatch answers a watch request with 200 and returns a function that
// sends one event, flushed.
func startWatch(w http.ResponseWriter) func(typ string, obj any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	enc := json.NewEncoder(w)
	return func(typ string, obj any) {
		_ = enc.Encode(map[string]any{"type": typ, "object": obj})
		w.(http.Flusher).Flush()
	}
}

// endBookmark returns the initial-events-end bookmark at rv.
func endBookmark(rv int) *corev1.ConfigMap {
	return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{ResourceVersion: strconv.Itoa(rv),
			Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
}

// status answers an error Status.
func status(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string, causes ...metav1.StatusCause) {
	st := metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure,
		Code: int32(code), Reason: reason, Message: msg}
	if len(causes) > 0 {
		st.Details = &metav1.StatusDetails{Causes: causes}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(&st)
}

// hold keeps a watch open until the client goes away.
func hold(r *http.Request) { <-r.Context().Done() }

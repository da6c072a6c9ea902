package runtime

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

func cm(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// log records handler calls as short strings.
type log struct{ calls []string }

func (l *log) handler() Handler[*corev1.ConfigMap] {
	return HandlerFuncs[*corev1.ConfigMap]{
		ResyncStartedFunc: func() { l.calls = append(l.calls, "resync") },
		AddFunc:           func(o *corev1.ConfigMap) { l.calls = append(l.calls, "add "+o.Name+"@"+o.ResourceVersion) },
		UpdateFunc: func(old, o *corev1.ConfigMap) {
			l.calls = append(l.calls, "update "+o.Name+"@"+old.ResourceVersion+">"+o.ResourceVersion)
		},
		DeleteFunc: func(o *corev1.ConfigMap, _ Deletion) {
			l.calls = append(l.calls, "delete "+o.Name+"@"+o.ResourceVersion)
		},
		SyncFunc:  func() { l.calls = append(l.calls, "sync") },
		ErrorFunc: func(err error) { l.calls = append(l.calls, "error "+Classify(err).String()) },
	}
}

func (l *log) take() string {
	s := strings.Join(l.calls, ", ")
	l.calls = nil
	return s
}

func TestCacheResyncEpochs(t *testing.T) {
	_, d := NewDriver[*corev1.ConfigMap](Resource{})
	var l log
	d.s.AddHandler(l.handler())

	d.Resync(cm("a", "1"), cm("b", "2"), cm("c", "3"))
	if got, want := l.take(), "resync, add a@1, add b@2, add c@3, sync"; got != want {
		t.Fatalf("first sync:\n got %s\nwant %s", got, want)
	}
	// b is gone, c changed, d is new; a is unchanged and not delivered again.
	d.Resync(cm("a", "1"), cm("c", "5"), cm("d", "6"))
	if got, want := l.take(), "resync, update c@3>5, add d@6, delete b@2, sync"; got != want {
		t.Fatalf("resync:\n got %s\nwant %s", got, want)
	}
	if d.s.Store().Len() != 3 {
		t.Fatalf("store holds %d objects, want 3", d.s.Store().Len())
	}
}

func TestCacheOrderAndDuplicates(t *testing.T) {
	_, d := NewDriver[*corev1.ConfigMap](Resource{})
	var l log
	d.s.AddHandler(l.handler())
	d.Add(cm("a", "5"))
	d.Add(cm("a", "5"))    // same version again: nothing
	d.Update(cm("a", "4")) // older: dropped
	d.Update(cm("a", "7"))
	d.Delete(cm("a", "8"))
	d.Delete(cm("a", "9")) // not stored: nothing
	if got, want := l.take(), "add a@5, update a@5>7, delete a@8"; got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

func TestLateHandlerReplay(t *testing.T) {
	s, d := NewDriver[*corev1.ConfigMap](Resource{})
	d.Add(cm("a", "1"))
	var before log
	s.AddHandler(before.handler())
	d.Wait()
	if got := before.take(); got != "add a@1" {
		t.Fatalf("before sync: %s", got)
	}
	d.Sync()
	var after log
	reg := s.AddHandler(after.handler())
	d.Wait()
	if got := after.take(); got != "add a@1, sync" {
		t.Fatalf("after sync: %s", got)
	}
	reg.Remove()
	d.Add(cm("b", "2"))
	if got := after.take(); got != "" {
		t.Fatalf("removed handler got %s", got)
	}
	if got := before.take(); got != "sync, add b@2" {
		t.Fatalf("first handler: %s", got)
	}
}

func TestStoreIndexesFollowUpdates(t *testing.T) {
	_, d := NewDriver[*corev1.ConfigMap](Resource{},
		WithIndex("byOwner", func(c *corev1.ConfigMap) []string { return []string{c.Labels["owner"]} }))
	st := d.s.Store()
	x := cm("x", "1")
	x.Labels = map[string]string{"owner": "alice"}
	d.Add(x)
	if got := st.ByIndex("byOwner", "alice"); len(got) != 1 {
		t.Fatalf("ByIndex alice = %d", len(got))
	}
	y := cm("x", "2")
	y.Labels = map[string]string{"owner": "bob"}
	d.Update(y)
	if len(st.ByIndex("byOwner", "alice")) != 0 || len(st.ByIndex("byOwner", "bob")) != 1 {
		t.Fatal("index not moved from alice to bob")
	}
	if got := fmt.Sprint(st.IndexValues("byOwner")); got != "[bob]" {
		t.Fatalf("IndexValues = %s", got)
	}
	d.Delete(y)
	if len(st.IndexValues("byOwner")) != 0 {
		t.Fatal("index kept a deleted object")
	}
}

func TestTransformRunsBeforeStore(t *testing.T) {
	s, d := NewDriver[*corev1.ConfigMap](Resource{}, WithStripManagedFields(),
		WithTransform(func(c *corev1.ConfigMap) *corev1.ConfigMap { c.Data = nil; return c }))
	x := cm("x", "1")
	x.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m"}}
	x.Data = map[string]string{"k": "v"}
	d.Add(x)
	got, _ := s.Store().Get("ns", "x")
	if got.ManagedFields != nil || got.Data != nil {
		t.Fatalf("transforms not applied: %+v", got)
	}
}

func TestCompareRV(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"5", "5", 0}, {"4", "5", -1}, {"10", "9", 1}, {"", "1", -1}, {"x", "y", -1}, {"x", "x", 0},
	} {
		if got := compareRV(tc.a, tc.b); got != tc.want {
			t.Errorf("compareRV(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	for _, tc := range []struct {
		err  error
		want ErrorKind
	}{
		{apierrors.NewForbidden(gr, "", errors.New("no")), KindForbidden},
		{apierrors.NewUnauthorized("no"), KindUnauthorized},
		{apierrors.NewNotFound(gr, "x"), KindNotFound},
		{apierrors.NewTooManyRequests("slow down", 1), KindThrottled},
		{apierrors.NewResourceExpired("too old resource version: 1 (5)"), KindExpired},
		{&apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonGone, Message: "gone"}}, KindExpired}, // a plain 410
		{apierrors.NewInvalid(schema.GroupKind{Kind: "ListOptions"}, "", nil), KindInvalid},
		{apierrors.NewTimeoutError("slow", 1), KindTimeout},
		{apierrors.NewServiceUnavailable("down"), KindUnavailable},
		{apierrors.NewInternalError(errors.New("boom")), KindInternal},
		{errDecode{errors.New("bad")}, KindDecode},
		{errNoBookmark, KindNoBookmark},
		{errClosedEarly, KindUnavailable},
		{&SyncError{Kind: KindThrottled, Err: errors.New("x")}, KindThrottled},
		{eventError(watchErrorEvent(410, metav1.StatusReasonExpired)), KindExpired},
		{eventError(watchErrorEvent(500, "ClientWatchDecoding")), KindDecode},
		{errors.New("something else"), KindUnknown},
	} {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

func TestModeMemory(t *testing.T) {
	m := &modeMemory{until: map[string]time.Time{}}
	now := time.Unix(1000, 0)
	if m.choose("k", now) != ModeWatchList {
		t.Fatal("a new key must try WatchList")
	}
	m.refuse("k", now, time.Minute)
	if m.choose("k", now.Add(59*time.Second)) != ModeList {
		t.Fatal("refused key must use List until the probe interval passes")
	}
	if m.choose("k", now.Add(61*time.Second)) != ModeWatchList {
		t.Fatal("WatchList must be probed again after the interval")
	}
	m.refuse("k", now, time.Minute)
	m.accept("k")
	if m.choose("k", now) != ModeWatchList || m.choose("other", now) != ModeWatchList {
		t.Fatal("accept must clear the refusal")
	}
}

func watchErrorEvent(code int32, reason metav1.StatusReason) watch.Event {
	return watch.Event{Type: watch.Error, Object: &metav1.Status{Code: code, Reason: reason, Status: metav1.StatusFailure}}
}

// TestRecordedVersionNeverGoesBack applies, as a warm start does to an
// object fetched ahead of its watch, events older than the stored state:
// they are dropped, and must not take the resourceVersion recorded for the
// store back, or a snapshot saved later would name a version older than
// its contents.
func TestRecordedVersionNeverGoesBack(t *testing.T) {
	_, d := NewDriver[*corev1.ConfigMap](Resource{})
	c := d.s.cache
	c.upsert(cm("a", "105"))
	c.upsert(cm("a", "103"))
	c.delete(cm("a", "104"))
	c.at(c.whole, "102")
	if got, ok := c.store.Get("ns", "a"); !ok || got.ResourceVersion != "105" || c.whole.rv != "105" {
		t.Fatalf("store a@%v at %s, want a@105 at 105", got, c.whole.rv)
	}
	c.upsert(cm("b", "107"))
	if c.whole.rv != "107" {
		t.Errorf("at %s after b@107, want 107", c.whole.rv)
	}
}

package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Faults injected in front of a real server for the warm resyncs, and
// what the tests of them share.

// injector is a client-side proxy in front of a real server: it answers
// some requests itself, with faults the server cannot be made to show on
// demand, and passes the others on.
type injector struct {
	base     *rest.Config                                // the server, through an isolating proxy (see isolated)
	wraps    []func(http.RoundTripper) http.RoundTripper // behind the injector
	gone     atomic.Bool                                 // answer the next plain watch 410 Gone
	failMeta atomic.Bool                                 // answer every metadata-only LIST 500
	errs     errorCounts                                 // what the syncer under test reported

	mu      sync.Mutex
	limits  []int             // the limit of each metadata-only LIST, in order (0: none)
	watches map[*cutBody]bool // the watches open
}

// cutBody is a watch's body that expire can end, as the server ends a
// watch at its timeout.
type cutBody struct {
	io.ReadCloser
	cut atomic.Bool
}

func (b *cutBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && b.cut.Load() {
		err = io.EOF
	}
	return n, err
}

// expire makes the syncer's resourceVersion expire: it ends the watches
// open, and answers the next 410 Gone, as a server does that restarted.
func (f *injector) expire() {
	f.gone.Store(true)
	f.mu.Lock()
	defer f.mu.Unlock()
	for b := range f.watches {
		b.cut.Store(true)
		b.ReadCloser.Close()
	}
}

func (f *injector) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		q := r.URL.Query()
		switch {
		case isMetadataList(r):
			limit, _ := strconv.Atoi(q.Get("limit"))
			f.mu.Lock()
			f.limits = append(f.limits, limit)
			f.mu.Unlock()
			if f.failMeta.Load() {
				return statusResponse(r, http.StatusInternalServerError, metav1.StatusReasonInternalError, "the metadata-only LIST fails here"), nil
			}
		case q.Get("watch") == "true" && !isWatchList(r) && f.gone.CompareAndSwap(true, false):
			return statusResponse(r, http.StatusGone, metav1.StatusReasonExpired, "too old resource version: "+q.Get("resourceVersion")), nil
		case q.Get("watch") == "true":
			resp, err := rt.RoundTrip(r)
			if err == nil {
				b := &cutBody{ReadCloser: resp.Body}
				f.mu.Lock()
				if f.watches == nil {
					f.watches = map[*cutBody]bool{}
				}
				f.watches[b] = true
				f.mu.Unlock()
				resp.Body = closer{b, func() error {
					f.mu.Lock()
					delete(f.watches, b)
					f.mu.Unlock()
					return b.ReadCloser.Close()
				}}
			}
			return resp, err
		}
		return rt.RoundTrip(r)
	})
}

// closer is a body whose Close is another function.
type closer struct {
	io.Reader
	close func() error
}

func (c closer) Close() error { return c.close() }

// newInjector returns an injector in front of srv; wraps see the requests
// it passes on.
func newInjector(t *testing.T, srv *testbed.Server, wraps ...func(http.RoundTripper) http.RoundTripper) *injector {
	return &injector{base: isolated(t, srv), wraps: wraps}
}

// config returns a configuration for the server through f. Its host is
// base's: a snapshot saved through base is the server's for it.
func (f *injector) config() *rest.Config {
	c := rest.CopyConfig(f.base)
	for _, w := range append([]func(http.RoundTripper) http.RoundTripper{f.wrap}, f.wraps...) {
		c.Wrap(w)
	}
	return c
}

// warmResyncs are the two warm resyncs startWarm runs.
var warmResyncs = []struct {
	name         string
	fromSnapshot bool
}{{"FromTheSnapshot", true}, {"AfterA410", false}}

// metadataLimits returns the limit of each metadata-only LIST so far.
func (f *injector) metadataLimits() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.limits)
}

// statusResponse is an error answer to r, as kube-apiserver writes one.
func statusResponse(r *http.Request, code int, reason metav1.StatusReason, msg string) *http.Response {
	b, _ := json.Marshal(&metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure,
		Code: int32(code), Reason: reason, Message: msg})
	return &http.Response{StatusCode: code, Status: http.StatusText(code), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b)), Request: r}
}

// errorCounts counts the failures a syncer reports, by kind. Its handlers
// may be told fewer: an error not delivered yet is replaced by the next.
type errorCounts struct {
	runtime.NopMetrics
	mu    sync.Mutex
	n     map[runtime.ErrorKind]int
	added atomic.Int64 // objects received as added: a warm start's restored among them
}

func (m *errorCounts) EventReceived(typ watch.EventType) {
	if typ == watch.Added {
		m.added.Add(1)
	}
}

func (m *errorCounts) Error(k runtime.ErrorKind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == nil {
		m.n = map[runtime.ErrorKind]int{}
	}
	m.n[k]++
}

func (m *errorCounts) of(k runtime.ErrorKind) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n[k]
}

// syncCount returns how many times c was told OnSync.
func (c *checker) syncCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.syncs
}

// warmRun is a syncer under test, after its warm resync.
type warmRun struct {
	s     *runtime.Syncer[*corev1.ConfigMap]
	c     *checker
	stop  func()
	w     *testbed.Writer
	fault time.Time     // when the resync under test started
	churn testbed.Churn // what changed while no syncer ran (from a snapshot)
}

// finish is fault.finish for r.
func (r warmRun) finish(t *testing.T, f fault, faultChecks func(testbed.WriterStats)) {
	t.Helper()
	f.finish(t, r.s, r.c, r.stop, r.w, r.fault, faultChecks)
}

// startWarm runs, on a real server, one of the two warm resyncs through
// inj, with writes flowing (a writer of wo): from a snapshot (a first run
// saves it, straight to the server, then a second starts from it through
// inj, after changes, deletions and creations (churn) and writes while no
// syncer ran), or a running syncer's after its
// watch ends and the next answers 410 Gone (expire). The writes start
// after the first sync, whose WatchList the server may cut when writes
// flow while it streams a large resource. It returns once that resync has
// completed (OnSync), and fails the test if it does not within syncWithin;
// more tells what the failure looked like.
func startWarm(t *testing.T, f fault, fromSnapshot bool, inj *injector, wo testbed.WriterOptions, more func() string,
	opts ...runtime.Option) warmRun {
	t.Helper()
	r := warmRun{c: newChecker(f.ns)}
	opts = append(slices.Clone(faultOptions), opts...)
	if fromSnapshot {
		path := filepath.Join(t.TempDir(), "configmaps.snapshot")
		opts = append(opts, runtime.WithSnapshot(path))
		s1, c1, stop1 := startChecked(t, inj.base, f.ns, opts...)
		waitSynced(t, s1, c1, "on the first run", nil)
		stop1() // no writes yet: the handler was told what the snapshot holds
		c1.checkViolations(t)
		r.c.prior = map[string]uint64{}
		for k, rv := range c1.rebuilt() {
			r.c.prior[k] = parseRV(rv)
		}
		var err error
		if r.churn, err = testbed.ChurnConfigMaps(context.Background(), kubernetes.NewForConfigOrDie(inj.base), f.ns, 10); err != nil {
			t.Fatal(err)
		}
		r.w = testbed.StartWriter(t, inj.base, f.ns, wo)
		eventually(t, 10*time.Second, "writes while no syncer runs", func() bool { return r.w.Stats().Writes() >= 200 })
		r.fault = time.Now()
		r.s, r.stop = startWith(t, inj.config(), r.c, append(opts, runtime.WithMetrics(&inj.errs))...)
		waitSynced(t, r.s, r.c, "from the snapshot", more)
		return r
	}
	r.s, r.stop = startWith(t, inj.config(), r.c, append(opts, runtime.WithMetrics(&inj.errs))...)
	waitSynced(t, r.s, r.c, "", nil)
	r.w = testbed.StartWriter(t, inj.base, f.ns, wo)
	waitLive(t, r.c)
	r.fault = time.Now()
	inj.expire()
	deadline := time.Now().Add(syncWithin)
	for inj.gone.Load() || r.c.syncCount() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("not synced again %s after the 410: %s; %s", syncWithin, r.c, more())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := inj.errs.of(runtime.KindExpired); n != 1 {
		t.Errorf("%d 410 Gone reported, want the one injected", n)
	}
	return r
}

// checkPriorSettled fails the test unless every object of the prior state
// (a warm start's snapshot) was delivered again, or told gone once if
// deleted while no syncer ran, and no other.
func (c *checker) checkPriorSettled(t *testing.T, deleted []string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.prior) > 0 {
		t.Errorf("%d objects of the snapshot neither delivered again nor told gone", len(c.prior))
	}
	for _, k := range deleted {
		if c.vanished[k] != 1 {
			t.Errorf("%s, deleted while no syncer ran: told gone %d times, want once", k, c.vanished[k])
		}
	}
	if len(c.vanished) != len(deleted) {
		t.Errorf("%d objects of the snapshot told gone, want the %d deleted while no syncer ran: %v", len(c.vanished), len(deleted), c.vanished)
	}
}

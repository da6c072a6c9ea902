package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A server with the WatchList gate off answers 422; the syncer falls back to
// paginated LIST + WATCH and says so.
func TestFallbackWhenGateOff(t *testing.T) {
	srv := testbed.Start(t, testbed.WithAPIServerFlags("--feature-gates=WatchList=false"))
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 120, nil)

	s, rec := startSyncer(t, srv.Config(), runtime.WithNamespace(ns), runtime.WithPageSize(50))
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s.Mode() != runtime.ModeList {
		t.Fatalf("Mode() = %s, want list", s.Mode())
	}
	if len(rec.adds) != 120 || rec.resyncs != 1 || rec.syncs != 1 {
		t.Fatalf("%d adds, %d resyncs, %d syncs; want 120, 1, 1", len(rec.adds), rec.resyncs, rec.syncs)
	}
	if len(rec.errs) != 0 {
		t.Fatalf("a refused WatchList is not an error for the user, got %v", rec.errs)
	}
	// Live events flow on the watch that follows the list.
	createConfigMaps(t, cs, ns, 120, 121, nil)
	if err := cs.CoreV1().ConfigMaps(ns).Delete(context.Background(), "cm-0000", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "store to match the server", storeMatchesServer(t, cs, s, ns))

	// A second syncer for the same server and resource does not probe again.
	s2, rec2 := startSyncer(t, srv.Config(), runtime.WithNamespace(ns))
	if err := s2.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s2.Mode() != runtime.ModeList || len(rec2.adds) != 120 {
		t.Fatalf("second syncer: mode %s, %d adds; want list, 120", s2.Mode(), len(rec2.adds))
	}
}

// Behind a proxy that strips sendInitialEvents and resourceVersionMatch, in
// front of a server with the gate off, a WatchList request turns into a
// plain watch that never sends the end bookmark. client-go waits forever
// here; the syncer gives up after its bookmark timeout, completes with a
// LIST and delivers each object once.
func TestNoBookmarkBehindStrippingProxy(t *testing.T) {
	srv := testbed.Start(t, testbed.WithAPIServerFlags("--feature-gates=WatchList=false"))
	testNoBookmark(t, srv, func(p *testbed.Proxy) { p.StripWatchList(true) })
}

// Same, with a proxy that drops the end bookmark in front of a server that
// supports WatchList.
func TestNoBookmarkBehindDroppingProxy(t *testing.T) {
	testNoBookmark(t, testbed.Shared(t), func(p *testbed.Proxy) { p.DropInitialEventsBookmark(true) })
}

func testNoBookmark(t *testing.T, srv *testbed.Server, breakIt func(*testbed.Proxy)) {
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 200, nil)
	proxy := testbed.StartProxy(t, srv)
	breakIt(proxy)

	const timeout = time.Second
	started := time.Now()
	s, rec := startSyncer(t, proxy.Config(), runtime.WithNamespace(ns), runtime.WithBookmarkTimeout(timeout))
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatalf("no sync: %v", err)
	}
	if took := time.Since(started); took > timeout+10*time.Second {
		t.Fatalf("sync took %s with a bookmark timeout of %s", took, timeout)
	}
	if s.Mode() != runtime.ModeList {
		t.Fatalf("Mode() = %s, want list", s.Mode())
	}
	if len(rec.adds) != 200 || rec.resyncs != 1 || rec.syncs != 1 {
		t.Fatalf("%d adds, %d resyncs, %d syncs; want 200, 1, 1", len(rec.adds), rec.resyncs, rec.syncs)
	}
	for k, n := range rec.adds {
		if n != 1 {
			t.Fatalf("%s added %d times", k, n)
		}
	}
	if d := rec.duplicates(); len(d) > 0 {
		t.Fatalf("delivered more than once: %v", d)
	}
	if len(rec.errs) != 1 || runtime.Classify(rec.errs[0]) != runtime.KindNoBookmark {
		t.Fatalf("want one no-bookmark error, got %v", rec.errs)
	}
	createConfigMaps(t, cs, ns, 200, 201, nil)
	eventually(t, 20*time.Second, "store to match the server", storeMatchesServer(t, cs, s, ns))
}

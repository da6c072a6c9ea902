package ctrlsyncer_test

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// heapAfterGC is the live heap once a collection has run.
func heapAfterGC() int64 {
	var m goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// goroutinesOf returns the stacks of the goroutines that run a function
// whose name holds one of names.
func goroutinesOf(names ...string) string {
	buf := make([]byte, 1<<20)
	buf = buf[:goruntime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, n := range names {
			if strings.Contains(g, n) {
				out = append(out, g)
				break
			}
		}
	}
	return strings.Join(out, "\n\n")
}

// RemoveSyncer, the Client's RemoveInformer: the syncer of widgets, which
// a controller's For source delivers from, stops; its handler (the
// source's) ends and no goroutine of it is left; the heap drops by about
// its Store.Bytes though the test, and the source, still hold the syncer;
// reads of widgets go to the Manager's client, which answers as for a type
// no syncer serves (here, as the cache answers after RemoveInformer with
// ReaderFailOnMissingInformer: ErrResourceNotCached). Removing it again
// does nothing, as RemoveInformer; Add makes a new syncer, which serves
// reads again.
func TestRemoveSyncerAsRemoveInformer(t *testing.T) {
	srv, direct, ns := server(t)
	big := strings.Repeat("x", 48<<10)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() {
			errs <- direct.Create(context.Background(), &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("w-%03d", i),
				Annotations: map[string]string{"big": big}}, Spec: shopv1alpha1.WidgetSpec{Owner: "o", Size: 1}})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	mgr := newManager(t, srv.Config(), logr.Discard())
	c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)))
	if err != nil {
		t.Fatal(err)
	}
	src := ctrlsyncer.For(mgr, field(c), shopsyncers.WidgetSyncerIn)
	widgets, err := ctrlsyncer.Add(mgr, field(c), shopsyncers.WidgetSyncerIn)
	if err != nil {
		t.Fatal(err)
	}
	start(t, mgr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q := newQueue()
	defer q.ShutDown()
	if err := src.Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKey{Namespace: ns, Name: "w-000"}
	var w shopv1alpha1.Widget
	if err := started(ctx, func() error { return c.Get(ctx, key, &w) }); err != nil {
		t.Fatal(err)
	}
	if err := src.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := len(drain(q)); got != 100 {
		t.Fatalf("the source queued %d widgets, want 100", got)
	}
	storeBytes := widgets.Store().Bytes()
	ignore := goleak.IgnoreCurrent()
	before := heapAfterGC()

	if err := c.RemoveSyncer(ctx, &shopv1alpha1.Widget{}); err != nil {
		t.Fatal(err)
	}
	after := heapAfterGC()
	t.Logf("Store.Bytes %d; the heap dropped by %d (%.2fx)", storeBytes, before-after, float64(before-after)/float64(storeBytes))
	if drop := before - after; drop < storeBytes*8/10 {
		t.Errorf("the heap dropped by %d bytes once the syncer was removed; its store held %d", drop, storeBytes)
	}
	goleak.VerifyNone(t, ignore)
	eventually(t, 10*time.Second, func() string { // those started before: the source's
		if g := goroutinesOf("syncer-gen/runtime.", "ctrlsyncer.(*syncerSource"); g != "" {
			return "goroutines of the removed syncer or its source are left:\n" + g
		}
		return ""
	})

	var notCached *cache.ErrResourceNotCached
	if err := c.Get(ctx, key, &w); !errors.As(err, &notCached) {
		t.Errorf("Get of a widget once its syncer was removed: %v; want the Manager's client's ErrResourceNotCached", err)
	}
	if err := c.RemoveSyncer(ctx, &shopv1alpha1.Widget{}); err != nil {
		t.Errorf("removing it again: %v; want nothing, as RemoveInformer", err)
	}
	again, err := ctrlsyncer.Add(mgr, field(c), shopsyncers.WidgetSyncerIn)
	if err != nil || again == widgets {
		t.Fatalf("Add after RemoveSyncer: %v; want a new syncer", err)
	}
	if err := c.Get(ctx, key, &w); err != nil || w.Name != key.Name {
		t.Errorf("Get from the new syncer: %v", err)
	}
}

// Issue 42, defect 6: RemoveSyncer before the Manager starts ends the
// syncer's handlers (a source's, started before the Manager) and leaves
// no goroutine of them.
func TestRemoveSyncerBeforeTheManagerStarts(t *testing.T) {
	srv, _, ns := server(t)
	mgr := newManager(t, srv.Config(), logr.Discard())
	c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)))
	if err != nil {
		t.Fatal(err)
	}
	widgets, err := ctrlsyncer.Add(mgr, field(c), shopsyncers.WidgetSyncerIn)
	if err != nil {
		t.Fatal(err)
	}
	reg := widgets.AddHandler(runtime.HandlerFuncs[*shopv1alpha1.Widget]{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.RemoveSyncer(ctx, &shopv1alpha1.Widget{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reg.Done():
	default:
		t.Fatal("the handler's Registration.Done is open after RemoveSyncer before the Manager started")
	}
	if g := goroutinesOf("(*dispatcher[...]).run"); g != "" {
		t.Fatalf("handler goroutines left after RemoveSyncer before the Manager started:\n%s", g)
	}
}

package syncerset_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

// heapAfterGC is the live heap once a collection has run.
func heapAfterGC() int64 {
	var m goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// A syncer removed from a running set stops: its Run returns, its
// handler ends, no goroutine of it is left, its store is emptied and the
// heap drops by about its Store.Bytes (the test still holds the syncer: its
// store's maps and objects go all the same), while the set's other syncer
// goes on. Removing it again, or a syncer of another set, is an error; Add
// with its options makes a new one, which syncs.
func TestRemoveStopsTheSyncerAndGivesItsStoreBack(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	big, small := srv.Namespace(t), srv.Namespace(t)
	createLarge(t, cs, big, 100, 64<<10)
	createLarge(t, cs, small, 2, 16)

	set, err := syncerset.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	defer func() { stop(); set.Wait() }()
	kept, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithNamespace(small))
	if err != nil {
		t.Fatal(err)
	}
	set.Start(runCtx)
	if err := set.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	ignore := goleak.IgnoreCurrent() // the set's connection, the kept syncer's goroutines

	removed, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithNamespace(big))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	adds := 0
	reg := removed.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(*corev1.ConfigMap) { mu.Lock(); adds++; mu.Unlock() }})
	if err := set.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	storeBytes := removed.Store().Bytes()
	if removed.Store().Len() != 100 || storeBytes < 100*64<<10 {
		t.Fatalf("the syncer holds %d objects, %d bytes; want 100 of 64 KiB", removed.Store().Len(), storeBytes)
	}
	before := heapAfterGC()

	if err := syncerset.Remove(ctx, set, removed); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reg.Done():
	default:
		t.Error("the removed syncer's handler has not ended when Remove returned")
	}
	after := heapAfterGC()
	t.Logf("Store.Bytes %d; the heap dropped by %d (%.2fx)", storeBytes, before-after, float64(before-after)/float64(storeBytes))
	if drop := before - after; drop < storeBytes*8/10 {
		t.Errorf("the heap dropped by %d bytes once the syncer was removed; its store held %d", drop, storeBytes)
	}
	if removed.Store().Len() != 0 || removed.Store().Bytes() != 0 {
		t.Errorf("the removed syncer's store holds %d objects, %d bytes", removed.Store().Len(), removed.Store().Bytes())
	}
	goleak.VerifyNone(t, ignore)

	if set.Len() != 1 {
		t.Errorf("the set holds %d syncers, want 1", set.Len())
	}
	if err := syncerset.Remove(ctx, set, removed); err == nil || !strings.Contains(err.Error(), "not in the set") {
		t.Errorf("removing it again: %v", err)
	}
	if err := removed.Run(ctx); err == nil {
		t.Error("Run of a removed syncer: no error")
	}
	createLarge(t, cs, small, 1, 16) // the kept syncer goes on
	eventually(t, 30*time.Second, "the kept syncer's new object", func() bool { return kept.Store().Len() == 3 })

	again, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithNamespace(big))
	if err != nil || again == removed {
		t.Fatalf("Add after Remove: %v; want a new syncer", err)
	}
	if err := set.WaitForSync(ctx); err != nil || again.Store().Len() != 100 {
		t.Fatalf("the new syncer: %v, %d objects", err, again.Store().Len())
	}
}

// createLarge creates n ConfigMaps in ns, each with size bytes of data,
// named after those ns holds already.
func createLarge(t *testing.T, cs kubernetes.Interface, ns string, n, size int) {
	t.Helper()
	ctx := context.Background()
	have, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data := strings.Repeat("x", size)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", len(have.Items)+i)},
				Data: map[string]string{"d": data}}, metav1.CreateOptions{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Issue 42, defect 6: Remove of a syncer of a set not started yet ends
// its handlers (Done closes) and leaves no goroutine of it.
func TestRemoveBeforeStart(t *testing.T) {
	srv := testbed.Shared(t)
	set, err := syncerset.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	ns := srv.Namespace(t)
	ignore := goleak.IgnoreCurrent() // the test bed's connections
	sy, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	reg := sy.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := syncerset.Remove(ctx, set, sy); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reg.Done():
	default:
		t.Fatal("the handler's Registration.Done is open after Remove before Start")
	}
	if err := goleak.Find(ignore); err != nil {
		t.Fatalf("goroutines left by a syncer removed before Start: %v", err)
	}
}

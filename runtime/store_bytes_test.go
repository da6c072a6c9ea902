package runtime_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/deploypod"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/runtime/internal/memsize"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// bytesMetrics records the last StoreBytes and ObjectsStored calls.
type bytesMetrics struct {
	runtime.NopMetrics
	bytes, objects atomic.Int64
}

func (m *bytesMetrics) StoreBytes(n int64)  { m.bytes.Store(n) }
func (m *bytesMetrics) ObjectsStored(n int) { m.objects.Store(int64(n)) }

// recomputed is what Store.Bytes must be: every stored object estimated
// from scratch, and its map slot.
func recomputed[T runtime.Object](s *runtime.Store[T]) int64 {
	var n int64
	for _, o := range s.List() {
		n += memsize.For[T]().Of(o) + runtime.SlotBytes[T]()
	}
	return n
}

// The store's bytes follow adds, replacements, deletions and a resync's
// sweep, equal the objects estimated from scratch after each, reach
// Metrics.StoreBytes, and come back to 0 once the store is empty.
func TestStoreBytesFollowChanges(t *testing.T) {
	m := &bytesMetrics{}
	s, d := runtime.NewDriver[*corev1.Pod](runtime.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true},
		runtime.WithMetrics(m))
	check := func(step string) {
		t.Helper()
		got, want := s.Store().Bytes(), recomputed(s.Store())
		if got != want {
			t.Errorf("%s: Store.Bytes %d, recomputed %d", step, got, want)
		}
		if m.bytes.Load() != got {
			t.Errorf("%s: Metrics.StoreBytes last told %d, Store.Bytes %d", step, m.bytes.Load(), got)
		}
	}
	pod := func(i, rv int) *corev1.Pod {
		p := deploypod.Full("ns", fmt.Sprintf("p-%d", i), i)
		p.ResourceVersion = fmt.Sprint(rv)
		return p
	}
	d.Add(pod(1, 1), pod(2, 2), pod(3, 3))
	d.Sync()
	check("three added")
	if three := s.Store().Bytes(); three < 3*10_000 {
		t.Errorf("three Deployment pods: %d bytes, less than 10 KB each", three)
	}
	small := pod(2, 4)
	small.ManagedFields, small.Spec.Containers = nil, small.Spec.Containers[:1]
	before := s.Store().Bytes()
	d.Update(small)
	check("one replaced by a smaller one")
	if s.Store().Bytes() >= before {
		t.Errorf("replacing a pod by a smaller one: %d bytes, was %d", s.Store().Bytes(), before)
	}
	d.Delete(pod(1, 5))
	check("one deleted")
	d.Resync(pod(3, 6)) // pod 2 gone while away: swept
	check("resync without pod 2")
	if s.Store().Len() != 1 {
		t.Fatalf("after the resync: %d objects, want 1", s.Store().Len())
	}
	d.Delete(pod(3, 7))
	check("all deleted")
	if n := s.Store().Bytes(); n != 0 {
		t.Errorf("empty store: %d bytes, want 0", n)
	}
}

// Against the server: pods created, updated and deleted while the syncer
// runs; once the store holds what the server holds, its bytes equal its
// objects estimated from scratch, and 0 once every pod is deleted.
func TestStoreBytesFollowTheServer(t *testing.T) {
	srv := testbed.Shared(t)
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ns := srv.Namespace(t)
	ctx := context.Background()
	const n = 40
	for i := range n {
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, deploypod.Pod(ns, fmt.Sprintf("p-%02d", i), i), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	m := &bytesMetrics{}
	s, err := runtime.New[*corev1.Pod](srv.Config(), runtime.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true,
		NewList: func() kruntime.Object { return &corev1.PodList{} }}, runtime.WithNamespace(ns), runtime.WithMetrics(m))
	if err != nil {
		t.Fatal(err)
	}
	runSyncer(t, s)
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.WaitForSync(wctx); err != nil {
		t.Fatal(err)
	}
	settled := func(what string, want int) {
		t.Helper()
		eventually(t, 30*time.Second, what, func() bool {
			l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil || len(l.Items) != want || s.Store().Len() != want {
				return false
			}
			for _, p := range l.Items {
				if got, ok := s.Store().Get(ns, p.Name); !ok || got.ResourceVersion != p.ResourceVersion {
					return false
				}
			}
			return true
		})
		if got, want := s.Store().Bytes(), recomputed(s.Store()); got != want {
			t.Errorf("%s: Store.Bytes %d, recomputed from the store %d", what, got, want)
		}
		if m.bytes.Load() != s.Store().Bytes() {
			t.Errorf("%s: Metrics.StoreBytes last told %d, Store.Bytes %d", what, m.bytes.Load(), s.Store().Bytes())
		}
	}
	settled("the initial pods", n)
	initial := s.Store().Bytes()
	for i := range n / 2 { // an annotation added: each pod grows
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"grown":"%s"}}}`, fmt.Sprintf("%0200d", i))
		if _, err := cs.CoreV1().Pods(ns).Patch(ctx, fmt.Sprintf("p-%02d", i), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	zero := int64(0)
	for i := n / 2; i < n/2+10; i++ {
		if err := cs.CoreV1().Pods(ns).Delete(ctx, fmt.Sprintf("p-%02d", i), metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			t.Fatal(err)
		}
	}
	settled("half the pods updated, ten deleted", n-10)
	if after := s.Store().Bytes(); after >= initial {
		t.Errorf("ten of %d pods deleted: %d bytes, not below the %d of all", n, after, initial)
	}
	if err := cs.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	settled("every pod deleted", 0)
	if got := s.Store().Bytes(); got != 0 {
		t.Errorf("empty store: %d bytes, want 0", got)
	}
}

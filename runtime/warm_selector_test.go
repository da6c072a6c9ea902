package runtime_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

var pods = runtime.Resource{
	Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true,
	NewList: func() kruntime.Object { return &corev1.PodList{} },
}

// podRecorder rebuilds, from handler calls alone, the pods a node agent
// holds: name -> resourceVersion.
type podRecorder struct {
	mu      sync.Mutex
	held    map[string]string
	deletes map[string]int
}

func (r *podRecorder) handler() runtime.Handler[*corev1.Pod] {
	set := func(p *corev1.Pod) { r.mu.Lock(); r.held[p.Name] = p.ResourceVersion; r.mu.Unlock() }
	return runtime.HandlerFuncs[*corev1.Pod]{
		AddFunc:    set,
		UpdateFunc: func(_, p *corev1.Pod) { set(p) },
		DeleteFunc: func(p *corev1.Pod, _ runtime.Deletion) {
			r.mu.Lock()
			delete(r.held, p.Name)
			r.deletes[p.Name]++
			r.mu.Unlock()
		},
	}
}

// TestWarmStartFollowsAPodToAnotherNode is a node agent's warm start: a
// syncer of the pods with spec.nodeName=node-a, restarted from its snapshot
// after kube-apiserver restarted (so that what changed is fetched), with
// pods of the node updated all along. One changed pod is deleted and
// created again on node-b between the syncer's metadata-only LIST and its
// fetch of that pod. A GET by name ignores the field selector: it brought
// the new pod, on node-b, newer than the deletion the watch sends, and the
// syncer never synced. The store and the state rebuilt from handler calls
// must end equal to a quorum LIST with the selector.
func TestWarmStartFollowsAPodToAnotherNode(t *testing.T) {
	const sel, podsOnA = "spec.nodeName=node-a", 40
	srv := testbed.Start(t)
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ns := srv.Namespace(t)
	ctx := context.Background()
	createPod := func(name, node string) error {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "agent"}}}}
		_, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	}
	label := func(name, v string) error {
		patch := fmt.Sprintf(`{"metadata":{"labels":{"v":%q}}}`, v)
		_, err := cs.CoreV1().Pods(ns).Patch(ctx, name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
		return err
	}
	for i := range podsOnA {
		for _, err := range []error{createPod(fmt.Sprintf("p%02d", i), "node-a"), createPod(fmt.Sprintf("q%02d", i), "node-b")} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "pods.snapshot")
	opts := []runtime.Option{runtime.WithNamespace(ns), runtime.WithFieldSelector(sel), runtime.WithSnapshot(path)}

	first, err := runtime.New[*corev1.Pod](srv.Config(), pods, opts...)
	if err != nil {
		t.Fatal(err)
	}
	stop := runSyncer(t, first)
	if err := first.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	stop() // saves the snapshot

	// While the agent is down: p01..p09 change, and kube-apiserver restarts.
	for i := 1; i < 10; i++ {
		if err := label(fmt.Sprintf("p%02d", i), "down"); err != nil {
			t.Fatal(err)
		}
	}
	srv.RestartAPIServer(t)

	// p01 moves to node-b as the agent fetches it.
	var moved atomic.Bool
	cfg := srv.Config()
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodGet && strings.Contains(r.URL.String(), "p01") && moved.CompareAndSwap(false, true) {
				if err := cs.CoreV1().Pods(ns).Delete(ctx, "p01", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
					t.Error(err)
				}
				if err := createPod("p01", "node-b"); err != nil {
					t.Error(err)
				}
			}
			return rt.RoundTrip(r)
		})
	})
	// Pods of node-a keep changing while the agent starts.
	writing, stopWriting := context.WithCancel(ctx)
	var writes atomic.Int64
	var writer sync.WaitGroup
	for w := range 4 {
		writer.Go(func() {
			for i := w; writing.Err() == nil; i += 4 {
				if err := label(fmt.Sprintf("p%02d", 10+i%(podsOnA-10)), fmt.Sprint(i)); err == nil {
					writes.Add(1)
				}
			}
		})
	}
	second, err := runtime.New[*corev1.Pod](cfg, pods, opts...)
	if err != nil {
		t.Fatal(err)
	}
	rec := &podRecorder{held: map[string]string{}, deletes: map[string]int{}}
	second.AddHandler(rec.handler())
	runSyncer(t, second)
	err = second.WaitForSync(ctxTimeout(t, 30*time.Second))
	if err == nil { // and live events after it
		synced := writes.Load()
		eventually(t, 20*time.Second, "300 writes after the sync", func() bool { return writes.Load() >= synced+300 })
	}
	stopWriting()
	writer.Wait()
	if err != nil {
		t.Fatalf("the warm start did not sync: %v", err)
	}
	if !moved.Load() {
		t.Fatal("p01 was never fetched: the test did not move it under the fetch")
	}
	if second.Mode() != runtime.ModeWarm {
		t.Errorf("mode %s, want warm", second.Mode())
	}
	t.Logf("%d writes while the agent started and ran", writes.Load())

	want := func() map[string]string {
		l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, p := range l.Items {
			m[p.Name] = p.ResourceVersion
		}
		return m
	}
	stored := func() map[string]string {
		m := map[string]string{}
		for _, p := range second.Store().List() {
			m[p.Name] = p.ResourceVersion
		}
		return m
	}
	eventually(t, 20*time.Second, "the store and the handler's state equal to a quorum LIST", func() bool {
		w := want()
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return maps.Equal(stored(), w) && maps.Equal(rec.held, w)
	})
	if _, ok := second.Store().Get(ns, "p01"); ok {
		t.Error("p01 stored: it runs on node-b now")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.deletes["p01"] != 1 {
		t.Errorf("p01's deletion told %d times, want once", rec.deletes["p01"])
	}
}

package nsselect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/nsselect"
	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

func TestMain(m *testing.M) { os.Exit(testbed.Main(m)) }

var configMaps = runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true,
	NewList: func() kruntime.Object { return &corev1.ConfigMapList{} }}

// events records what a handler is told, per object.
type events struct {
	mu       sync.Mutex
	adds     map[string]int
	inferred map[string]int
	deletes  int
	syncs    int
}

func (e *events) handler() runtime.Handler[*corev1.ConfigMap] {
	return runtime.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc: func(cm *corev1.ConfigMap) { e.mu.Lock(); e.adds[cm.Namespace+"/"+cm.Name]++; e.mu.Unlock() },
		DeleteFunc: func(cm *corev1.ConfigMap, how runtime.Deletion) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.deletes++
			if how == runtime.DeletionInferred {
				e.inferred[cm.Namespace+"/"+cm.Name]++
			}
		},
		SyncFunc: func() { e.mu.Lock(); e.syncs++; e.mu.Unlock() },
	}
}

func (e *events) check(f func(e *events) bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return f(e)
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

// namespace makes a namespace of this run's own (testbed's Namespace:
// deleted when the test ends, so that a run again, -count, selects none of
// an earlier run's), with labels and two ConfigMaps in it.
func namespace(t *testing.T, srv *testbed.Server, labels map[string]string) string {
	t.Helper()
	ctx := context.Background()
	cs := srv.Client()
	ns := srv.Namespace(t)
	if len(labels) > 0 {
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return ns
}

func label(t *testing.T, cs kubernetes.Interface, ns, value string) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"labels":{"nsselect-team":%s}}}`, value)
	if _, err := cs.CoreV1().Namespaces().Patch(context.Background(), ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// namespacesIn returns the namespaces of the store's objects, sorted.
func namespacesIn(s *runtime.Syncer[*corev1.ConfigMap]) []string {
	var out []string
	for _, k := range s.Store().Keys() {
		if !slices.Contains(out, k.Namespace) {
			out = append(out, k.Namespace)
		}
	}
	return out
}

func sorted(s ...string) []string { slices.Sort(s); return s }

// A syncer that follows a label selector on Namespaces: it syncs, after
// the Namespaces, the objects of the labelled namespaces only; a
// namespace that gains the label, or is made with it, has its objects
// synced and delivered; one that loses it, or is deleted, has its objects
// taken out of the store and delivered as inferred deletions, once each.
func TestSyncerFollowsTheNamespacesOfALabel(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	team := map[string]string{"nsselect-team": "payments"}
	a, b, c := namespace(t, srv, team), namespace(t, srv, team), namespace(t, srv, nil)

	set, err := syncerset.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nsselect.New(set, "nsselect-team in (payments"); err == nil {
		t.Error("a selector that does not parse: no error")
	}
	sel, err := nsselect.New(set, "nsselect-team=payments")
	if err != nil {
		t.Fatal(err)
	}
	cms, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithNamespaces())
	if err != nil {
		t.Fatal(err)
	}
	ev := &events{adds: map[string]int{}, inferred: map[string]int{}}
	cms.AddHandler(ev.handler())
	if err := sel.Follow(cms); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(context.Background())
	defer func() { stop(); set.Wait() }()
	set.Start(runCtx)
	if err := set.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	// Other tests' namespaces are not labelled: the selector's are a and b.
	if got, want := sel.Chosen(), sorted(a, b); !slices.Equal(got, want) {
		t.Fatalf("chosen %v, want %v", got, want)
	}
	if got, want := namespacesIn(cms), sorted(a, b); !slices.Equal(got, want) || cms.Store().Len() != 4 {
		t.Fatalf("the follower holds %d objects of %v, want 4 of %v", cms.Store().Len(), got, want)
	}

	label(t, cs, c, `"payments"`)
	eventually(t, 30*time.Second, "c's objects", func() bool { return len(cms.Store().InNamespace(c)) == 2 })
	eventually(t, 10*time.Second, "c's objects delivered", func() bool {
		return ev.check(func(e *events) bool { return e.adds[c+"/cm-0"] == 1 && e.adds[c+"/cm-1"] == 1 })
	})

	label(t, cs, a, "null")
	eventually(t, 30*time.Second, "a's objects gone", func() bool { return len(cms.Store().InNamespace(a)) == 0 })
	if err := cs.CoreV1().Namespaces().Delete(ctx, b, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The test bed runs no namespace controller: finalize b by hand, as it would.
	gone, err := cs.CoreV1().Namespaces().Get(ctx, b, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gone.Spec.Finalizers = nil
	if _, err := cs.CoreV1().Namespaces().Finalize(ctx, gone, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "b's objects gone", func() bool { return len(cms.Store().InNamespace(b)) == 0 })
	d := namespace(t, srv, team)
	eventually(t, 30*time.Second, "d's objects", func() bool { return len(cms.Store().InNamespace(d)) == 2 })

	if got, want := namespacesIn(cms), sorted(c, d); !slices.Equal(got, want) {
		t.Errorf("the follower holds objects of %v, want %v", got, want)
	}
	ev.check(func(e *events) bool {
		for _, ns := range []string{a, b} {
			for _, k := range []string{ns + "/cm-0", ns + "/cm-1"} {
				if e.inferred[k] != 1 {
					t.Errorf("%s: %d inferred deletions, want 1", k, e.inferred[k])
				}
			}
		}
		if e.deletes != 4 {
			t.Errorf("%d deletions, want a's and b's 4", e.deletes)
		}
		return true
	})
}

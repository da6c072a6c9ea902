package golden_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	thingsv1 "github.com/syncer-gen/syncer-gen/internal/golden/api/things/v1"
	corev1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/core/v1"
	thingsv1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/things/v1"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
)

func TestMain(m *testing.M) { os.Exit(testbed.Main(m)) }

func manifest(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("config/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// run starts s until the test ends and waits for its first sync.
func run(t *testing.T, s interface {
	Run(context.Context) error
	WaitForSync(context.Context) error
}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	if err := s.WaitForSync(wctx); err != nil {
		t.Fatalf("no sync: %v", err)
	}
}

// create makes each object with ri. Cluster-scoped ones are deleted when
// the test ends (a namespace's are, with it: testbed's Namespace), so that
// the test may run again (-count) and a syncer of the resource meets none
// an earlier run made.
func create(t *testing.T, ri dynamic.ResourceInterface, objs ...map[string]any) {
	t.Helper()
	for _, o := range objs {
		made, err := ri.Create(t.Context(), &unstructured.Unstructured{Object: o}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if made.GetNamespace() == "" {
			t.Cleanup(func() {
				err := ri.Delete(context.Background(), made.GetName(), metav1.DeleteOptions{})
				if err != nil && !apierrors.IsNotFound(err) {
					t.Errorf("delete %s %s: %v", made.GetKind(), made.GetName(), err)
				}
			})
		}
	}
}

func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// The generated syncers of the golden fixture sync from a real server: a
// namespaced custom resource with indexes, a cluster-scoped one whose plural
// the marker sets, and core/v1 ConfigMaps through an alias.
func TestGeneratedSyncersOnRealServer(t *testing.T) {
	srv := testbed.Shared(t)
	srv.InstallCRD(t, manifest(t, "gadgets.yaml"))
	srv.InstallCRD(t, manifest(t, "data.yaml"))
	ctx := t.Context()
	cs := srv.Client()
	ns := srv.Namespace(t)
	dyn := dynamic.NewForConfigOrDie(srv.Config())
	gadgets := dyn.Resource(schema.GroupVersionResource{Group: "things.golden.example.com", Version: "v1", Resource: "gadgets"}).Namespace(ns)
	data := dyn.Resource(schema.GroupVersionResource{Group: "things.golden.example.com", Version: "v1", Resource: "data"})
	for i := range 40 {
		owner := []string{"ann", "bob"}[i%2]
		create(t, gadgets, map[string]any{
			"apiVersion": "things.golden.example.com/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": fmt.Sprintf("g%02d", i), "labels": map[string]any{"example.com/team": "red"}},
			"spec":     map[string]any{"owner": owner, "tags": []any{"t", owner}},
		})
	}
	for i := range 3 {
		create(t, data, map[string]any{
			"apiVersion": "things.golden.example.com/v1", "kind": "Datum",
			"metadata": map[string]any{"name": fmt.Sprintf("d%d", i)}, "value": "v",
		})
	}
	for i := range 5 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm%d", i), Labels: map[string]string{"app": []string{"web", "db"}[i%2]}}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	gs, err := thingsv1syncers.NewGadgetSyncer(srv.Config(), runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := thingsv1syncers.NewDatumSyncer(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	cms, err := corev1syncers.NewConfigMapSyncer(srv.Config(), runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	deleted := make(chan string, 10)
	ds.AddHandler(thingsv1syncers.DatumHandlerFuncs{DeleteFunc: func(d *thingsv1.Datum, _ runtime.Deletion) { deleted <- d.Name }})
	run(t, gs)
	run(t, ds)
	run(t, cms)

	if n := gs.Store().Len(); n != 40 {
		t.Errorf("gadgets: %d, want 40", n)
	}
	if n := len(gs.Store().ByOwner("ann")); n != 20 {
		t.Errorf("ByOwner(ann): %d, want 20", n)
	}
	if n := len(gs.Store().ByTags("t")); n != 40 {
		t.Errorf("ByTags(t): %d, want 40", n)
	}
	if n := len(gs.Store().ByTeam("red")); n != 40 {
		t.Errorf("ByTeam(red): %d, want 40", n)
	}
	if g, _ := gs.Store().Get(ns, "g00"); g == nil || g.ManagedFields != nil {
		t.Errorf("g00 = %v, want it without managed fields", g)
	}
	if n := ds.Store().Len(); n != 3 {
		t.Errorf("data: %d, want 3", n)
	}
	if d, _ := ds.Store().Get("", "d0"); d == nil || len(d.ManagedFields) == 0 {
		t.Errorf("d0 = %v, want it with its managed fields", d)
	}
	if n := len(cms.Store().ByApp("web")); n != 3 {
		t.Errorf("ByApp(web): %d, want 3", n)
	}
	for name, m := range map[string]runtime.Mode{"gadgets": gs.Mode(), "data": ds.Mode(), "configmaps": cms.Mode()} {
		if m != runtime.ModeWatchList {
			t.Errorf("%s synced in mode %s, want watchlist", name, m)
		}
	}

	// Live events reach the store and the handlers.
	patch := []byte(`{"spec":{"owner":"cat"}}`)
	if _, err := gadgets.Patch(ctx, "g00", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "ByOwner(cat) after a patch", func() bool { return len(gs.Store().ByOwner("cat")) == 1 })
	if err := data.Delete(ctx, "d1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case name := <-deleted:
		if name != "d1" {
			t.Errorf("OnDelete(%s), want d1", name)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no OnDelete for d1")
	}
}

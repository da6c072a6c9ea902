package golden_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	thingsv1 "github.com/syncer-gen/syncer-gen/internal/golden/api/things/v1"
	corev1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/core/v1"
	thingsv1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/things/v1"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The full syncers the projections are compared with.
var (
	podsResource = runtime.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true,
		NewList: func() kruntime.Object { return &corev1.PodList{} }}
	gadgetsGVR = schema.GroupVersionResource{Group: "things.golden.example.com", Version: "v1", Resource: "gadgets"}
)

// start runs s until the test ends, or until stop is called (which waits
// for Run to return, so that a snapshot is saved).
func start[T runtime.Object](t *testing.T, s *runtime.Syncer[T]) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	if err := s.WaitForSync(wctx); err != nil {
		t.Fatalf("no sync: %v", err)
	}
	return stop
}

// sameProjection tells whether the projected store holds, object for
// object and version for version, the projection of the full store; what
// differs, if not. TypeMeta is left out: a LIST page's items come without
// one in protobuf, a watch's with one, and the two syncers need not have
// read a version the same way.
func sameProjection[F runtime.Object, P runtime.Object](full *runtime.Store[F], proj *runtime.Store[P], from func(F) P) string {
	fk, pk := full.Keys(), proj.Keys()
	if len(fk) != len(pk) {
		return fmt.Sprintf("%d objects, the full syncer %d", len(pk), len(fk))
	}
	for _, k := range fk {
		f, _ := full.Get(k.Namespace, k.Name)
		p, ok := proj.Get(k.Namespace, k.Name)
		if !ok {
			return fmt.Sprintf("%s missing", k)
		}
		want := from(f)
		want.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		got := p.DeepCopyObject().(P)
		got.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			return fmt.Sprintf("%s:\n got %s\nwant %s", k, g, w)
		}
	}
	return ""
}

// converge waits until the full store holds the server's versions of
// what it holds (server: name -> resourceVersion, from a quorum LIST) and
// the projected store is the projection of the full one.
func converge[F runtime.Object, P runtime.Object](t *testing.T, server func() map[string]string, full *runtime.Store[F], proj *runtime.Store[P], from func(F) P) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		diff := sameProjection(full, proj, from)
		if diff == "" {
			diff = caughtUp(server(), full)
		}
		if diff == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the projected store is not the full one projected: %s", diff)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// caughtUp says what of store is not at the server's version, "" if all is.
func caughtUp[F runtime.Object](server map[string]string, store *runtime.Store[F]) string {
	for _, o := range store.List() {
		if rv, ok := server[o.GetName()]; !ok || rv != o.GetResourceVersion() {
			return fmt.Sprintf("%s at %s, the server at %q", o.GetName(), o.GetResourceVersion(), rv)
		}
	}
	return ""
}

// podVersions returns the pods of ns on the server: name -> resourceVersion.
func podVersions(t *testing.T, cs kubernetes.Interface, ns string) func() map[string]string {
	return func() map[string]string {
		l, err := cs.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, p := range l.Items {
			out[p.Name] = p.ResourceVersion
		}
		return out
	}
}

// createPods creates n Deployment-shaped pods in ns, every other one on
// node-a, and writes their status.
func createPods(t *testing.T, cs kubernetes.Interface, ns string, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		p := deploymentPod(ns, i, []string{"node-a", "node-b"}[i%2])
		status := p.Status
		p.ResourceVersion, p.UID, p.ManagedFields, p.CreationTimestamp, p.Status = "", "", nil, metav1.Time{}, corev1.PodStatus{}
		p.OwnerReferences[0].UID = types.UID(fmt.Sprintf("5b0c8f0e-0000-4000-8000-%012d", i))
		created, err := cs.CoreV1().Pods(ns).Create(t.Context(), p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created.Status = status
		if _, err := cs.CoreV1().Pods(ns).UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// podWrites changes the pods of ns n times: labels, phase and IPs, and
// now and then a pod deleted and made again (with a new UID).
func podWrites(t *testing.T, cs kubernetes.Interface, ns string, pods, n int) {
	t.Helper()
	for w := range n {
		i := w * 7 % pods
		name := fmt.Sprintf("web-7d9c8b6f5-%05d", i)
		var err error
		switch w % 5 {
		case 0, 1:
			patch := fmt.Sprintf(`{"metadata":{"labels":{"write":"%d"},"annotations":{"unkept":"%d"}}}`, w, w)
			_, err = cs.CoreV1().Pods(ns).Patch(t.Context(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		case 2, 3:
			patch := fmt.Sprintf(`{"status":{"phase":"%s","podIP":"10.9.0.%d","podIPs":[{"ip":"10.9.0.%d"}]}}`, []string{"Running", "Succeeded"}[w%2], w%250, w%250)
			_, err = cs.CoreV1().Pods(ns).Patch(t.Context(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
		default:
			if err = cs.CoreV1().Pods(ns).Delete(t.Context(), name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err == nil {
				createPods(t, cs, ns, i, i+1)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A projected Pod syncer (NodePod: a node agent's fields, in protobuf)
// syncs from the real server cold, stays in sync under writes, and holds
// the projection of what a full Pod syncer holds, object for object: by
// WatchList, by LIST + WATCH, under a field selector and in a shard.
func TestProjectedPodSyncer(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	const pods = 40
	createPods(t, cs, ns, 0, pods)
	for _, c := range []struct {
		name string
		opts []runtime.Option
	}{
		{"watchlist", nil},
		{"list", []runtime.Option{runtime.WithoutWatchList()}},
		{"selector", []runtime.Option{runtime.WithFieldSelector("spec.nodeName=node-a")}},
		{"shard", []runtime.Option{runtime.WithShard(1, 2)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := append([]runtime.Option{runtime.WithNamespace(ns)}, c.opts...)
			full, err := runtime.New[*corev1.Pod](srv.Config(), podsResource, opts...)
			if err != nil {
				t.Fatal(err)
			}
			proj, err := corev1syncers.NewNodePodSyncer(srv.Config(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			start(t, full)
			start(t, proj.Syncer)
			if n := proj.Store().Len(); n == 0 || n > pods {
				t.Fatalf("%d pods synced", n)
			}
			converge(t, podVersions(t, cs, ns), full.Store(), proj.Syncer.Store(), corev1syncers.NodePodFrom)
			// The projection syncs as the full syncer does: a bookmark is
			// read whole whatever the projection keeps (it keeps no
			// annotations, the initial-events-end bookmark's among them).
			if proj.Mode() != full.Mode() || c.name == "watchlist" && proj.Mode() != runtime.ModeWatchList {
				t.Errorf("the projection synced in mode %s, the full syncer in %s", proj.Mode(), full.Mode())
			}
			podWrites(t, cs, ns, pods, 30)
			converge(t, podVersions(t, cs, ns), full.Store(), proj.Syncer.Store(), corev1syncers.NodePodFrom)
			// The marker's index works on the projected type.
			if len(proj.Store().ByNode("node-a")) != len(full.Store().List())-len(proj.Store().ByNode("node-b")) {
				t.Errorf("ByNode: %d on node-a and %d on node-b of %d", len(proj.Store().ByNode("node-a")), len(proj.Store().ByNode("node-b")), proj.Store().Len())
			}
			// What the projection holds is what it keeps, and nothing else.
			for _, p := range proj.Store().List() {
				if len(p.Spec.Containers) != 2 || p.Spec.Containers[1].Image != "envoyproxy/envoy:v1.32.1" || p.Labels["app.kubernetes.io/name"] != "web" ||
					len(p.OwnerReferences) != 1 || p.Annotations != nil || p.ManagedFields != nil || p.Status.PodIP == "" {
					t.Fatalf("projected pod %s: %+v", p.Name, p)
				}
			}
		})
	}
}

// A projected Pod syncer restarts warm from its snapshot after
// kube-apiserver restarted (so that what changed while it was down is
// fetched, one GET per pod): it gives back what it saved, equal objects,
// and ends holding the projection of what a cold full syncer holds.
func TestProjectedPodSyncerRestartsWarm(t *testing.T) {
	srv := testbed.Start(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	const pods = 30
	createPods(t, cs, ns, 0, pods)
	path := filepath.Join(t.TempDir(), "nodepods.snapshot")
	first, err := corev1syncers.NewNodePodSyncer(srv.Config(), runtime.WithNamespace(ns), runtime.WithSnapshot(path))
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, first.Syncer)
	saved := map[runtime.Key]*corev1syncers.NodePod{}
	for _, p := range first.Store().List() {
		saved[runtime.KeyOf(p)] = p
	}
	stop()

	podWrites(t, cs, ns, pods, 10) // while the syncer is down
	srv.RestartAPIServer(t)

	cfg, gets := counting(srv, func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/pods/")
	})
	second, err := corev1syncers.NewNodePodSyncer(cfg, runtime.WithNamespace(ns), runtime.WithSnapshot(path))
	if err != nil {
		t.Fatal(err)
	}
	start(t, second.Syncer)
	if second.Mode() != runtime.ModeWarm {
		t.Fatalf("second run synced in mode %s, want warm", second.Mode())
	}
	if gets.Load() == 0 {
		t.Error("the warm start fetched no pod: the restart left it nothing to fetch")
	}
	cameBackFromTheSnapshot(t, saved, second.Syncer.Store())
	full, err := runtime.New[*corev1.Pod](srv.Config(), podsResource, runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	start(t, full)
	converge(t, podVersions(t, cs, ns), full.Store(), second.Syncer.Store(), corev1syncers.NodePodFrom)
}

// counting returns a config of srv that counts the requests match takes.
func counting(srv *testbed.Server, match func(*http.Request) bool) (*rest.Config, *atomic.Int64) {
	var n atomic.Int64
	cfg := srv.Config()
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			if match(r) {
				n.Add(1)
			}
			return rt.RoundTrip(r)
		})
	})
	return cfg, &n
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// gadgetObject returns certGadget i as the dynamic client writes it.
func gadgetObject(t *testing.T, ns string, i int) *unstructured.Unstructured {
	t.Helper()
	g := certGadget(ns, i)
	g.ResourceVersion, g.UID, g.CreationTimestamp, g.Generation = "", "", metav1.Time{}, 0
	u, err := kruntime.DefaultUnstructuredConverter.ToUnstructured(g)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: u}
}

// A projected custom resource syncer (GadgetSummary: seven fields of a
// Certificate-shaped Gadget, in JSON) syncs cold, stays in sync under
// writes, holds the projection of what the full Gadget syncer holds, and
// restarts warm from its snapshot with a label selector (fetching what
// changed by LISTs of one name). An object whose kept field has the wrong
// type is undecodable for both; one whose field the projection does not
// read has the wrong type is undecodable for the full syncer only.
func TestProjectedGadgetSyncer(t *testing.T) {
	srv := testbed.Start(t)
	srv.InstallCRD(t, manifest(t, "gadgets.yaml"))
	ns := srv.Namespace(t)
	gadgets := dynamic.NewForConfigOrDie(srv.Config()).Resource(gadgetsGVR).Namespace(ns)
	const n = 40
	for i := range n {
		if _, err := gadgets.Create(t.Context(), gadgetObject(t, ns, i), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	sel := "example.com/team=red"
	versions := func() map[string]string {
		l, err := gadgets.List(t.Context(), metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, g := range l.Items {
			out[g.GetName()] = g.GetResourceVersion()
		}
		return out
	}
	path := filepath.Join(t.TempDir(), "gadgets.snapshot")
	opts := []runtime.Option{runtime.WithNamespace(ns), runtime.WithLabelSelector(sel)}
	full, err := thingsv1syncers.NewGadgetSyncer(srv.Config(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	var undecodable sync.Map // syncer -> names
	report := func(who string) runtime.Handler[*thingsv1syncers.GadgetSummary] {
		return thingsv1syncers.GadgetSummaryHandlerFuncs{ErrorFunc: func(err error) {
			var bad *runtime.ObjectDecodeError
			if errors.As(err, &bad) {
				undecodable.Store(who+"/"+bad.Name, true)
			}
		}}
	}
	full.AddHandler(thingsv1syncers.GadgetHandlerFuncs{ErrorFunc: func(err error) {
		var bad *runtime.ObjectDecodeError
		if errors.As(err, &bad) {
			undecodable.Store("full/"+bad.Name, true)
		}
	}})
	proj, err := thingsv1syncers.NewGadgetSummarySyncer(srv.Config(), append(opts, runtime.WithSnapshot(path))...)
	if err != nil {
		t.Fatal(err)
	}
	proj.AddHandler(report("projected"))
	start(t, full.Syncer)
	stop := start(t, proj.Syncer)
	from := func(g *thingsv1.Gadget) *thingsv1syncers.GadgetSummary { return thingsv1syncers.GadgetSummaryFrom(g) }
	converge(t, versions, full.Syncer.Store(), proj.Syncer.Store(), from)
	if proj.Mode() != runtime.ModeWatchList || full.Mode() != runtime.ModeWatchList {
		t.Errorf("synced in modes %s (projection) and %s (full), want both %s", proj.Mode(), full.Mode(), runtime.ModeWatchList)
	}

	patch := func(i int, body string) {
		t.Helper()
		if _, err := gadgets.Patch(t.Context(), fmt.Sprintf("g%05d", i), types.MergePatchType, []byte(body), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for w := range 20 {
		patch(w*3%n, fmt.Sprintf(`{"spec":{"owner":"w%d","renewBefore":"%dh"},"status":{"phase":"P%d","ready":%v}}`, w, w+1, w, w%2 == 0))
	}
	converge(t, versions, full.Syncer.Store(), proj.Syncer.Store(), from)
	if got := len(proj.Store().ByOwner("w0")); got != 1 {
		t.Errorf("ByOwner(w0): %d, want 1", got)
	}

	// g00001's kept owner becomes a number: neither syncer can decode it.
	// g00002's replicas (not kept) becomes a string: only the full one fails.
	// One at a time: only the latest error waits for a handler that is
	// behind (docs/handlers.md), so the full syncer's handler may be told
	// of g00002 alone if both come before it takes the first.
	patch(1, `{"spec":{"owner":5}}`)
	poll(t, "g00001 reported undecodable by both", func() bool {
		_, a := undecodable.Load("full/g00001")
		_, b := undecodable.Load("projected/g00001")
		return a && b
	})
	patch(2, `{"spec":{"replicas":"many","owner":"still"}}`)
	poll(t, "g00002 reported undecodable by the full syncer", func() bool {
		_, c := undecodable.Load("full/g00002")
		return c
	})
	if _, ok := undecodable.Load("projected/g00002"); ok {
		t.Error("the projection reported g00002, whose bad field it does not read")
	}
	poll(t, "the projection to take g00002's new version", func() bool {
		g, ok := proj.Store().Get(ns, "g00002")
		return ok && g.Spec.Owner == "still"
	})
	patch(1, `{"spec":{"owner":"fixed"}}`)
	patch(2, `{"spec":{"replicas":3}}`)
	converge(t, versions, full.Syncer.Store(), proj.Syncer.Store(), from)

	saved := map[string]*thingsv1syncers.GadgetSummary{}
	for _, g := range proj.Store().List() {
		saved[g.Name] = g
	}
	stop()
	for i := range 5 {
		patch(i, fmt.Sprintf(`{"status":{"phase":"down%d"}}`, i))
	}
	srv.RestartAPIServer(t)
	cfg, fetches := counting(srv, func(r *http.Request) bool { return strings.Contains(r.URL.RawQuery, "metadata.name") })
	again, err := thingsv1syncers.NewGadgetSummarySyncer(cfg, append(opts, runtime.WithSnapshot(path))...)
	if err != nil {
		t.Fatal(err)
	}
	start(t, again.Syncer)
	if again.Mode() != runtime.ModeWarm {
		t.Fatalf("restart synced in mode %s, want warm", again.Mode())
	}
	if fetches.Load() == 0 {
		t.Error("the warm start fetched nothing by a LIST of one name")
	}
	for name, g := range saved {
		if got, ok := again.Store().Get(ns, name); ok && got.ResourceVersion == g.ResourceVersion && !reflect.DeepEqual(got, g) {
			t.Errorf("%s came back from the snapshot as\n%+v\nnot\n%+v", name, got, g)
		}
	}
	converge(t, versions, full.Syncer.Store(), again.Syncer.Store(), from)
}

// cameBackFromTheSnapshot checks that the objects a warm start kept from
// its snapshot (those still at the version saved) are equal to what was
// saved, and that the writes while the syncer was down changed some of
// them but not all.
func cameBackFromTheSnapshot[T runtime.Object](t *testing.T, saved map[runtime.Key]T, store *runtime.Store[T]) {
	t.Helper()
	unchanged := 0
	for k, p := range saved {
		if got, ok := store.Get(k.Namespace, k.Name); ok && got.GetResourceVersion() == p.GetResourceVersion() {
			unchanged++
			if !reflect.DeepEqual(got, p) {
				t.Errorf("%s came back from the snapshot as\n%+v\nnot\n%+v", k, got, p)
			}
		}
	}
	if unchanged == 0 || unchanged == len(saved) {
		t.Errorf("%d of %d objects unchanged: the test changed none, or all", unchanged, len(saved))
	}
}

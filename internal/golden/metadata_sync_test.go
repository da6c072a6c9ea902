package golden_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	thingsv1 "github.com/syncer-gen/syncer-gen/internal/golden/api/things/v1"
	corev1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/core/v1"
	thingsv1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/things/v1"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// askedMetadata says which of reqs, the requests of a metadata-only
// syncer of resource (a path's last part), did not ask for
// PartialObjectMetadata: a LIST for a PartialObjectMetadataList, a watch
// or a GET for PartialObjectMetadata; "" when all did. A sharded syncer's
// LIST of one object is whole: its list tells the shard. n is how many
// requests of resource there were.
func askedMetadata(reqs []testbed.Request, resource string, sharded bool) (n int, wrong string) {
	for _, r := range reqs {
		collection := strings.HasSuffix(r.Path, "/"+resource)
		if !collection && !strings.Contains(r.Path, "/"+resource+"/") {
			continue
		}
		n++
		want := "PartialObjectMetadata"
		if collection && !r.Watch() {
			want = "PartialObjectMetadataList"
			if sharded && r.Query.Get("limit") == "1" {
				continue
			}
		}
		if r.AsksFor() != want && wrong == "" {
			wrong = fmt.Sprintf("%s %s?%s asked for %q", r.Method, r.Path, r.Query.Encode(), r.Accept)
		}
	}
	return n, wrong
}

// bytes returns the bytes of the responses in reqs.
func bytes(reqs []testbed.Request) (n int64) {
	for _, r := range reqs {
		n += r.Bytes
	}
	return n
}

// A projection of metadata only (PodOwners: a pod's labels and owners)
// asks the server for PartialObjectMetadata on every request (WatchList,
// LIST pages, watch, the count before a WatchList), receives the bytes of
// the pods' metadata only (0.7 of what a full syncer of the same
// Deployment-shaped pods receives; see dynamicsyncer's tests for objects
// with data), and holds the projection of what the full syncer holds,
// object for object, cold and under writes: by WatchList, LIST + WATCH,
// with a field selector, in a shard, and after a warm restart (a watch
// from the snapshot). The projection of a custom resource (GadgetMeta)
// does the same in JSON, by WatchList and by LIST.
func TestMetadataProjectionAsksForMetadata(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	const pods = 30
	createPods(t, cs, ns, 0, pods)
	for _, c := range []struct {
		name string
		opts []runtime.Option
	}{
		{"watchlist", nil},
		{"list", []runtime.Option{runtime.WithoutWatchList(), runtime.WithPageSize(7)}},
		{"selector", []runtime.Option{runtime.WithFieldSelector("spec.nodeName=node-a")}},
		{"shard", []runtime.Option{runtime.WithShard(1, 2)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wholeProxy, metaProxy := testbed.StartProxy(t, srv), testbed.StartProxy(t, srv)
			wholeProxy.RecordRequests(true)
			metaProxy.RecordRequests(true)
			opts := append([]runtime.Option{runtime.WithNamespace(ns)}, c.opts...)
			full, err := runtime.New[*corev1.Pod](wholeProxy.Config(), podsResource, opts...)
			if err != nil {
				t.Fatal(err)
			}
			proj, err := corev1syncers.NewPodOwnersSyncer(metaProxy.Config(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			start(t, full)
			start(t, proj.Syncer)
			if n := proj.Store().Len(); n == 0 || n > pods {
				t.Fatalf("%d pods synced", n)
			}
			converge(t, podVersions(t, cs, ns), full.Store(), proj.Syncer.Store(), corev1syncers.PodOwnersFrom)
			if proj.Mode() != full.Mode() {
				t.Errorf("the projection synced in mode %s, the full syncer in %s", proj.Mode(), full.Mode())
			}
			podWrites(t, cs, ns, pods, 30)
			converge(t, podVersions(t, cs, ns), full.Store(), proj.Syncer.Store(), corev1syncers.PodOwnersFrom)
			for _, p := range proj.Store().List() {
				if len(p.OwnerReferences) != 1 || len(p.Labels) == 0 || p.Annotations != nil || p.ManagedFields != nil {
					t.Fatalf("projected pod %s: %+v", p.Name, p)
				}
				if got := proj.Store().ByOwner(string(p.OwnerReferences[0].UID)); len(got) != 1 || got[0] != p {
					t.Errorf("ByOwner(%s): %d pods", p.OwnerReferences[0].UID, len(got))
				}
			}
			reqs := metaProxy.Requests()
			if n, wrong := askedMetadata(reqs, "pods", c.name == "shard"); n < 2 || wrong != "" {
				t.Errorf("%d requests; %s", n, wrong)
			}
			if n, _ := askedMetadata(wholeProxy.Requests(), "pods", false); n == 0 {
				t.Error("the full syncer made no request through its proxy")
			}
			got, whole := bytes(reqs), bytes(wholeProxy.Requests())
			t.Logf("%d bytes received, the full syncer %d (%.2fx)", got, whole, float64(got)/float64(whole))
			// A Deployment's pod is 0.7 metadata (managed fields mostly):
			// whole pods would be about as many bytes as the full syncer's.
			if float64(got) > 0.85*float64(whole) {
				t.Errorf("%d bytes received, the full syncer %d: not metadata only", got, whole)
			}
		})
	}
	t.Run("warm", func(t *testing.T) {
		proxy := testbed.StartProxy(t, srv)
		path := filepath.Join(t.TempDir(), "podowners.snapshot")
		opts := []runtime.Option{runtime.WithNamespace(ns), runtime.WithSnapshot(path)}
		first, err := corev1syncers.NewPodOwnersSyncer(proxy.Config(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		start(t, first.Syncer)()
		podWrites(t, cs, ns, pods, 10) // while it is down
		proxy.RecordRequests(true)
		second, err := corev1syncers.NewPodOwnersSyncer(proxy.Config(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		start(t, second.Syncer)
		if second.Mode() != runtime.ModeWarm {
			t.Fatalf("the second run synced in mode %s, want warm", second.Mode())
		}
		full, err := runtime.New[*corev1.Pod](srv.Config(), podsResource, runtime.WithNamespace(ns))
		if err != nil {
			t.Fatal(err)
		}
		start(t, full)
		converge(t, podVersions(t, cs, ns), full.Store(), second.Syncer.Store(), corev1syncers.PodOwnersFrom)
		podWrites(t, cs, ns, pods, 10)
		converge(t, podVersions(t, cs, ns), full.Store(), second.Syncer.Store(), corev1syncers.PodOwnersFrom)
		if n, wrong := askedMetadata(proxy.Requests(), "pods", false); n < 2 || wrong != "" {
			t.Errorf("%d requests; %s", n, wrong)
		}
	})
	t.Run("crd", func(t *testing.T) {
		srv.InstallCRD(t, manifest(t, "gadgets.yaml"))
		gadgets := dynamic.NewForConfigOrDie(srv.Config()).Resource(gadgetsGVR).Namespace(ns)
		for i := range 20 {
			if _, err := gadgets.Create(t.Context(), gadgetObject(t, ns, i), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		versions := func() map[string]string {
			l, err := gadgets.List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]string{}
			for _, g := range l.Items {
				out[g.GetName()] = g.GetResourceVersion()
			}
			return out
		}
		metaProxy := testbed.StartProxy(t, srv)
		metaProxy.RecordRequests(true)
		full, err := thingsv1syncers.NewGadgetSyncer(srv.Config(), runtime.WithNamespace(ns))
		if err != nil {
			t.Fatal(err)
		}
		proj, err := thingsv1syncers.NewGadgetMetaSyncer(metaProxy.Config(), runtime.WithNamespace(ns))
		if err != nil {
			t.Fatal(err)
		}
		listed, err := thingsv1syncers.NewGadgetMetaSyncer(metaProxy.Config(), runtime.WithNamespace(ns), runtime.WithoutWatchList())
		if err != nil {
			t.Fatal(err)
		}
		start(t, full.Syncer)
		start(t, proj.Syncer)
		start(t, listed.Syncer)
		from := func(g *thingsv1.Gadget) *thingsv1syncers.GadgetMeta { return thingsv1syncers.GadgetMetaFrom(g) }
		converge(t, versions, full.Syncer.Store(), proj.Syncer.Store(), from)
		converge(t, versions, full.Syncer.Store(), listed.Syncer.Store(), from)
		// A JSON LIST's items come as PartialObjectMetadata: they take
		// the resource's kind, as whole objects' items have it.
		for _, g := range listed.Store().List() {
			if g.Kind != "Gadget" || g.APIVersion != "things.golden.example.com/v1" {
				t.Errorf("%s listed as %s %s", g.Name, g.APIVersion, g.Kind)
			}
		}
		for w := range 10 {
			patch := fmt.Sprintf(`{"metadata":{"labels":{"write":"%d"}},"spec":{"owner":"w%d"}}`, w, w)
			if _, err := gadgets.Patch(t.Context(), fmt.Sprintf("g%05d", w), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		converge(t, versions, full.Syncer.Store(), proj.Syncer.Store(), from)
		converge(t, versions, full.Syncer.Store(), listed.Syncer.Store(), from)
		if n, wrong := askedMetadata(metaProxy.Requests(), "gadgets", false); n < 2 || wrong != "" {
			t.Errorf("%d requests; %s", n, wrong)
		}
		for _, r := range metaProxy.Requests() {
			if strings.Contains(r.Accept, "protobuf") {
				t.Errorf("a projection of a custom resource asked for protobuf: %q", r.Accept)
			}
		}
	})
}

// On kube-apiserver v1.36.3 with shards served, a projection of metadata
// only syncs in metadata by WatchList and by LIST + WATCH, keeps to its
// shard as the server serves it (it learns that from a LIST of one whole
// object: a PartialObjectMetadataList does not echo the shard), and restarts warm
// after the server restarted, fetching what changed by GETs of
// PartialObjectMetadata, to hold the projection of what a full syncer
// holds.
func TestMetadataProjectionOn136ShardedAndWarm(t *testing.T) {
	srv := testbed.Start(t, testbed.WithKubeVersion("v1.36.3"), testbed.WithAPIServerFlags("--feature-gates=ShardedListAndWatch=true"))
	cs := srv.Client()
	ns := srv.Namespace(t)
	const pods = 30
	createPods(t, cs, ns, 0, pods)

	proxy := testbed.StartProxy(t, srv)
	proxy.RecordRequests(true)
	for i, mode := range []runtime.Mode{runtime.ModeWatchList, runtime.ModeList} {
		shardOpts := []runtime.Option{runtime.WithNamespace(ns), runtime.WithShard(i, 2)}
		if mode == runtime.ModeList {
			shardOpts = append(shardOpts, runtime.WithoutWatchList())
		}
		fullShard, err := runtime.New[*corev1.Pod](srv.Config(), podsResource, shardOpts...)
		if err != nil {
			t.Fatal(err)
		}
		shard, err := corev1syncers.NewPodOwnersSyncer(proxy.Config(), shardOpts...)
		if err != nil {
			t.Fatal(err)
		}
		start(t, fullShard)
		start(t, shard.Syncer)
		converge(t, podVersions(t, cs, ns), fullShard.Store(), shard.Syncer.Store(), corev1syncers.PodOwnersFrom)
		if shard.Mode() != mode || shard.ShardMode() != runtime.ShardServed {
			t.Errorf("shard %d synced in mode %s, shard mode %s; want %s, served", i, shard.Mode(), shard.ShardMode(), mode)
		}
	}
	if n, wrong := askedMetadata(proxy.Requests(), "pods", true); n < 4 || wrong != "" {
		t.Errorf("shards: %d requests; %s", n, wrong)
	}

	path := filepath.Join(t.TempDir(), "podowners.snapshot")
	first, err := corev1syncers.NewPodOwnersSyncer(proxy.Config(), runtime.WithNamespace(ns), runtime.WithSnapshot(path))
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, first.Syncer)
	saved := map[runtime.Key]*corev1syncers.PodOwners{}
	for _, p := range first.Store().List() {
		saved[runtime.KeyOf(p)] = p
	}
	stop()
	podWrites(t, cs, ns, pods, 10) // while the syncer is down
	srv.RestartAPIServer(t)

	proxy.RecordRequests(false)
	proxy.RecordRequests(true)
	second, err := corev1syncers.NewPodOwnersSyncer(proxy.Config(), runtime.WithNamespace(ns), runtime.WithSnapshot(path))
	if err != nil {
		t.Fatal(err)
	}
	start(t, second.Syncer)
	if second.Mode() != runtime.ModeWarm {
		t.Fatalf("the second run synced in mode %s, want warm", second.Mode())
	}
	gets := 0
	for _, r := range proxy.Requests() {
		if r.Method == http.MethodGet && strings.Contains(r.Path, "/pods/") {
			gets++
		}
	}
	if gets == 0 {
		t.Error("the warm start fetched no pod: the restart left it nothing to fetch")
	}
	if n, wrong := askedMetadata(proxy.Requests(), "pods", false); n < 2 || wrong != "" {
		t.Errorf("warm: %d requests; %s", n, wrong)
	}
	cameBackFromTheSnapshot(t, saved, second.Syncer.Store())
	full, err := runtime.New[*corev1.Pod](srv.Config(), podsResource, runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	start(t, full)
	converge(t, podVersions(t, cs, ns), full.Store(), second.Syncer.Store(), corev1syncers.PodOwnersFrom)
	podWrites(t, cs, ns, pods, 10)
	converge(t, podVersions(t, cs, ns), full.Store(), second.Syncer.Store(), corev1syncers.PodOwnersFrom)
}

// Where a server refuses PartialObjectMetadata (406), a projection of
// metadata only asks again for whole objects at once, syncs as a full
// syncer would, and remembers the refusal: its requests ask for whole
// objects, without a refusal each, until the probe interval has passed;
// then it asks for metadata again.
func TestMetadataProjectionFallsBackToWholeObjects(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	const pods = 10
	createPods(t, cs, ns, 0, pods)
	proxy := testbed.StartProxy(t, srv)
	proxy.RefuseMetadata(true)
	proxy.RecordRequests(true)
	const probe = 3 * time.Second
	proj, err := corev1syncers.NewPodOwnersSyncer(proxy.Config(), runtime.WithNamespace(ns),
		runtime.WithProbeInterval(probe), runtime.WithWatchTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	full, err := runtime.New[*corev1.Pod](srv.Config(), podsResource, runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	start(t, full)
	start(t, proj.Syncer)
	converge(t, podVersions(t, cs, ns), full.Store(), proj.Syncer.Store(), corev1syncers.PodOwnersFrom)
	if proj.Mode() != runtime.ModeWatchList {
		t.Errorf("synced in mode %s, want watchlist", proj.Mode())
	}
	podWrites(t, cs, ns, pods, 10)
	converge(t, podVersions(t, cs, ns), full.Store(), proj.Syncer.Store(), corev1syncers.PodOwnersFrom)
	// Watches reconnect every second or two: wait for a refusal after the
	// first, which comes once the probe interval has passed.
	poll(t, "a second refusal", func() bool { return proxy.MetadataRefused() >= 2 })
	proxy.RefuseMetadata(false)
	poll(t, "a request to ask for metadata again, after the probe interval", func() bool {
		for _, r := range proxy.Requests() {
			if r.Status == http.StatusOK && strings.Contains(r.Accept, "as=PartialObjectMetadata") {
				return true
			}
		}
		return false
	})
	podWrites(t, cs, ns, pods, 5)
	converge(t, podVersions(t, cs, ns), full.Store(), proj.Syncer.Store(), corev1syncers.PodOwnersFrom)

	// Each refused request was sent again at once for whole objects, and
	// none asked for metadata within the probe interval after a refusal.
	reqs := proxy.Requests()
	var refused time.Time
	for i, r := range reqs {
		if strings.Contains(r.Accept, "as=PartialObjectMetadata") && !refused.IsZero() && r.Time.Sub(refused) < probe*9/10 {
			t.Errorf("%s?%s asked for metadata %s after a refusal", r.Path, r.Query.Encode(), r.Time.Sub(refused))
		}
		if r.Status != http.StatusNotAcceptable {
			continue
		}
		if i+1 == len(reqs) || reqs[i+1].Query.Encode() != r.Query.Encode() || strings.Contains(reqs[i+1].Accept, "as=") {
			t.Errorf("the refused %s?%s was not sent again at once for whole objects", r.Path, r.Query.Encode())
		}
		refused = r.Time
	}
}

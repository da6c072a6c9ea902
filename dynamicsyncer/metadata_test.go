package dynamicsyncer_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/dynamicsyncer"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// typedConfigMaps binds the full syncer the metadata syncers are compared with.
var typedConfigMaps = runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true,
	NewList: func() kruntime.Object { return &corev1.ConfigMapList{} }}

// bigConfigMap returns ConfigMap i: 64 KB of data, labels, an annotation
// and an owner (one of three).
func bigConfigMap(ns string, i int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i), Namespace: ns,
			Labels:      map[string]string{"app": []string{"web", "db"}[i%2], "i": fmt.Sprint(i)},
			Annotations: map[string]string{"note": "n"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner",
				UID: types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i%3))}}},
		Data: map[string]string{"blob": strings.Repeat(fmt.Sprint(i%10), 64<<10)},
	}
}

func createConfigMaps(t *testing.T, cs kubernetes.Interface, ns string, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), bigConfigMap(ns, i), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// writeConfigMaps changes the ConfigMaps of ns n times: data, labels,
// and now and then one deleted and made again (with a new UID).
func writeConfigMaps(t *testing.T, cs kubernetes.Interface, ns string, objects, n int) {
	t.Helper()
	for w := range n {
		i := w * 7 % objects
		cm := bigConfigMap(ns, i)
		var err error
		switch w % 3 {
		case 0:
			cm.Labels["write"] = fmt.Sprint(w)
			_, err = cs.CoreV1().ConfigMaps(ns).Update(t.Context(), cm, metav1.UpdateOptions{})
		case 1:
			cm.Data["blob"] = strings.Repeat("w", 64<<10)
			_, err = cs.CoreV1().ConfigMaps(ns).Update(t.Context(), cm, metav1.UpdateOptions{})
		default:
			if err = cs.CoreV1().ConfigMaps(ns).Delete(t.Context(), cm.Name, metav1.DeleteOptions{}); err == nil {
				_, err = cs.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{})
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// sameMetadata says how the metadata store differs from the metadata of
// the full one, object for object ("" when it does not); apiVersion and
// kind left out (a LIST's items in protobuf have none).
func sameMetadata(full *runtime.Store[*corev1.ConfigMap], meta *runtime.Store[*metav1.PartialObjectMetadata]) string {
	fk, mk := full.Keys(), meta.Keys()
	if !reflect.DeepEqual(fk, mk) {
		return fmt.Sprintf("keys %v, the full syncer's %v", mk, fk)
	}
	for _, k := range fk {
		f, _ := full.Get(k.Namespace, k.Name)
		m, _ := meta.Get(k.Namespace, k.Name)
		if !reflect.DeepEqual(f.ObjectMeta, m.ObjectMeta) {
			return fmt.Sprintf("%s:\n got %+v\nwant %+v", k, m.ObjectMeta, f.ObjectMeta)
		}
	}
	return ""
}

// serverVersions says how store differs from the server's ConfigMaps of ns.
func serverVersions[T runtime.Object](t *testing.T, cs kubernetes.Interface, ns string, store *runtime.Store[T]) string {
	l, err := cs.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != store.Len() {
		return fmt.Sprintf("%d objects, the server %d", store.Len(), len(l.Items))
	}
	for _, o := range l.Items {
		if got, ok := store.Get(ns, o.Name); !ok || got.GetResourceVersion() != o.ResourceVersion {
			return fmt.Sprintf("%s not at the server's %s", o.Name, o.ResourceVersion)
		}
	}
	return ""
}

// handlerState keeps what a handler was told: the objects by key.
type handlerState struct {
	mu   sync.Mutex
	objs map[runtime.Key]*metav1.PartialObjectMetadata
}

func (h *handlerState) handler() runtime.Handler[*metav1.PartialObjectMetadata] {
	h.objs = map[runtime.Key]*metav1.PartialObjectMetadata{}
	put := func(o *metav1.PartialObjectMetadata) { h.mu.Lock(); h.objs[runtime.KeyOf(o)] = o; h.mu.Unlock() }
	return runtime.HandlerFuncs[*metav1.PartialObjectMetadata]{
		AddFunc:    put,
		UpdateFunc: func(_, o *metav1.PartialObjectMetadata) { put(o) },
		DeleteFunc: func(o *metav1.PartialObjectMetadata, _ runtime.Deletion) {
			h.mu.Lock()
			delete(h.objs, runtime.KeyOf(o))
			h.mu.Unlock()
		},
	}
}

// differs says how what the handler was told differs from store.
func (h *handlerState) differs(store *runtime.Store[*metav1.PartialObjectMetadata]) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.objs) != store.Len() {
		return fmt.Sprintf("the handler holds %d objects, the store %d", len(h.objs), store.Len())
	}
	for k, o := range h.objs {
		if s, ok := store.Get(k.Namespace, k.Name); !ok || s != o {
			return fmt.Sprintf("the handler's %s is not the store's", k)
		}
	}
	return ""
}

// storedMetrics records what a syncer reports of its store.
type storedMetrics struct {
	runtime.NopMetrics
	objects atomic.Int64
	syncs   atomic.Int64
}

func (m *storedMetrics) ObjectsStored(n int)                     { m.objects.Store(int64(n)) }
func (m *storedMetrics) Synced(runtime.Mode, int, time.Duration) { m.syncs.Add(1) }

// A metadata syncer of ConfigMaps of 64 KB asks the server for
// PartialObjectMetadata on every request, receives at most 0.05x the bytes
// a full ConfigMap syncer does, and holds the metadata the full syncer
// holds, object for object, cold (WatchList, LIST + WATCH) and under
// writes; its index on a label, its handler and its metrics follow.
func TestMetadataSyncer(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	const objects = 20
	createConfigMaps(t, cs, ns, 0, objects)
	for _, c := range []struct {
		name string
		opts []runtime.Option
	}{
		{"watchlist", nil},
		{"list", []runtime.Option{runtime.WithoutWatchList(), runtime.WithPageSize(6)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wholeProxy, metaProxy := testbed.StartProxy(t, srv), testbed.StartProxy(t, srv)
			wholeProxy.RecordRequests(true)
			metaProxy.RecordRequests(true)
			opts := append([]runtime.Option{runtime.WithNamespace(ns)}, c.opts...)
			full, err := runtime.New[*corev1.ConfigMap](wholeProxy.Config(), typedConfigMaps, opts...)
			if err != nil {
				t.Fatal(err)
			}
			metrics := &storedMetrics{}
			meta, err := dynamicsyncer.NewMetadata(metaProxy.Config(), configMaps, append(opts, runtime.WithMetrics(metrics),
				runtime.WithIndex("app", func(m *metav1.PartialObjectMetadata) []string { return []string{m.Labels["app"]} }))...)
			if err != nil {
				t.Fatal(err)
			}
			var told handlerState
			meta.AddHandler(told.handler())
			start(t, full)
			start(t, meta)
			if meta.Mode() != full.Mode() {
				t.Errorf("synced in mode %s, the full syncer in %s", meta.Mode(), full.Mode())
			}
			converged := func() string {
				if d := serverVersions(t, cs, ns, full.Store()); d != "" {
					return "full: " + d
				}
				return sameMetadata(full.Store(), meta.Store())
			}
			eventually(t, "the metadata of the full store", converged)
			writeConfigMaps(t, cs, ns, objects, 12)
			eventually(t, "the metadata of the full store after writes", converged)
			eventually(t, "the handler to be told the store", func() string { return told.differs(meta.Store()) })
			if web, db := len(meta.Store().ByIndex("app", "web")), len(meta.Store().ByIndex("app", "db")); web != objects/2 || db != objects/2 {
				t.Errorf("index app: %d web, %d db", web, db)
			}
			if metrics.objects.Load() != objects || metrics.syncs.Load() != 1 {
				t.Errorf("metrics: %d objects stored, %d syncs", metrics.objects.Load(), metrics.syncs.Load())
			}
			if d := checkAsked(metaProxy.Requests(), "configmaps", false); d != "" {
				t.Error(d)
			}
			got, whole := responseBytes(metaProxy.Requests()), responseBytes(wholeProxy.Requests())
			t.Logf("%d bytes received, the full syncer %d (%.3fx)", got, whole, float64(got)/float64(whole))
			if got*20 > whole {
				t.Errorf("%d bytes received, the full syncer %d: over 0.05x", got, whole)
			}
		})
	}
}

// A metadata syncer restarts warm from its snapshot: the objects that did
// not change come back equal to what it saved, those that did are
// brought up to date, and it ends holding the metadata a full syncer
// holds; every request asks for metadata.
func TestMetadataSyncerRestartsWarm(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	const objects = 20
	createConfigMaps(t, cs, ns, 0, objects)
	proxy := testbed.StartProxy(t, srv)
	path := filepath.Join(t.TempDir(), "configmaps.snapshot")
	opts := []runtime.Option{runtime.WithNamespace(ns), runtime.WithSnapshot(path)}
	first, err := dynamicsyncer.NewMetadata(proxy.Config(), configMaps, opts...)
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, first)
	saved := map[runtime.Key]*metav1.PartialObjectMetadata{}
	for _, o := range first.Store().List() {
		saved[runtime.KeyOf(o)] = o
	}
	stop()
	writeConfigMaps(t, cs, ns, objects, 6) // while it is down

	proxy.RecordRequests(true)
	second, err := dynamicsyncer.NewMetadata(proxy.Config(), configMaps, opts...)
	if err != nil {
		t.Fatal(err)
	}
	start(t, second)
	if second.Mode() != runtime.ModeWarm {
		t.Fatalf("the second run synced in mode %s, want warm", second.Mode())
	}
	unchanged := 0
	for k, o := range saved {
		got, ok := second.Store().Get(k.Namespace, k.Name)
		if !ok || got.ResourceVersion != o.ResourceVersion {
			continue
		}
		unchanged++
		if !reflect.DeepEqual(got.ObjectMeta, o.ObjectMeta) {
			t.Errorf("%s came back from the snapshot as\n%+v\nnot\n%+v", k, got.ObjectMeta, o.ObjectMeta)
		}
	}
	if unchanged == 0 || unchanged == len(saved) {
		t.Errorf("%d of %d objects unchanged: the test changed none, or all", unchanged, len(saved))
	}
	full, err := runtime.New[*corev1.ConfigMap](srv.Config(), typedConfigMaps, runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	start(t, full)
	converged := func() string {
		if d := serverVersions(t, cs, ns, full.Store()); d != "" {
			return "full: " + d
		}
		return sameMetadata(full.Store(), second.Store())
	}
	eventually(t, "the metadata of the full store", converged)
	writeConfigMaps(t, cs, ns, objects, 6)
	eventually(t, "the metadata of the full store after writes", converged)
	if d := checkAsked(proxy.Requests(), "configmaps", false); d != "" {
		t.Error(d)
	}
}

// The two shards of a metadata syncer, in one set of syncers with an
// unstructured syncer of the same ConfigMaps, divide the objects between
// them, each exactly once, and the set waits for all three.
func TestMetadataShardsInASet(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	const objects = 20
	createConfigMaps(t, cs, ns, 0, objects)
	proxy := testbed.StartProxy(t, srv)
	proxy.RecordRequests(true)
	set, err := syncerset.New(proxy.Config(), syncerset.WithDefaults(runtime.WithNamespace(ns)))
	if err != nil {
		t.Fatal(err)
	}
	var shards []*dynamicsyncer.MetadataSyncer
	for i := range 2 {
		s, err := dynamicsyncer.MetadataIn(set, configMaps, runtime.WithShard(i, 2))
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, s)
	}
	if again, err := dynamicsyncer.MetadataIn(set, configMaps, runtime.WithShard(1, 2)); err != nil || again != shards[1] {
		t.Errorf("asking again for shard 1 gave another syncer (%v)", err)
	}
	whole, err := dynamicsyncer.UnstructuredIn(set, configMaps, runtime.WithStripManagedFields())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	set.Start(ctx)
	if err := set.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the shards to hold every object once", func() string {
		if d := serverVersions(t, cs, ns, whole.Store()); d != "" {
			return "unstructured: " + d
		}
		seen := map[runtime.Key]int{}
		for i, s := range shards {
			for _, o := range s.Store().List() {
				if _, twice := seen[runtime.KeyOf(o)]; twice {
					return fmt.Sprintf("%s in both shards", runtime.KeyOf(o))
				}
				seen[runtime.KeyOf(o)] = i
			}
		}
		if len(seen) != objects || shards[0].Store().Len() == 0 || shards[1].Store().Len() == 0 {
			return fmt.Sprintf("the shards hold %d and %d objects of %d", shards[0].Store().Len(), shards[1].Store().Len(), objects)
		}
		return ""
	})
	for _, o := range whole.Store().List() {
		if o.GetManagedFields() != nil {
			t.Fatalf("%s kept its managedFields", o.GetName())
		}
	}
	var metaReqs []testbed.Request
	for _, r := range proxy.Requests() {
		if r.Query.Get("shardSelector") != "" {
			metaReqs = append(metaReqs, r)
		}
	}
	if d := checkAsked(metaReqs, "configmaps", true); d != "" {
		t.Error(d)
	}
}

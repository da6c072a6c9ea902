package ctrlsyncer_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

// The read-your-own-writes cases of controller-runtime v0.25.2's
// pkg/client/consistency_envtest_test.go: each write kind through the
// side's client (whose Manager reads its own writes), then a read in the
// same namespace, which must see the write at once. Each side writes in
// a namespace of its own; a read's resourceVersion is compared with the
// write's.

// cmIn is a ConfigMap named name in ns, labelled l=v.
func cmIn(ns, name, l, v string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{l: v}}, Data: data}
}

// create creates obj through the side's client, or fails the case.
func (e *twinEnv) create(obj client.Object) {
	e.t.Helper()
	if err := e.c.Create(e.ctx, obj); err != nil {
		e.t.Fatalf("create %s: %v", obj.GetName(), err)
	}
}

// sees notes a Get of obj's key into into, and whether the read is at
// the write's resourceVersion.
func (e *twinEnv) sees(written, into client.Object) {
	e.t.Helper()
	err := e.get(client.ObjectKeyFromObject(written), into)
	if err == nil {
		e.note("at the write's resourceVersion: %t", into.GetResourceVersion() == written.GetResourceVersion())
	}
	e.check(err == nil && into.GetResourceVersion() == written.GetResourceVersion(),
		"a read of %s right after the write: %v, at resourceVersion %q; want the write's %q", written.GetName(), err, into.GetResourceVersion(), written.GetResourceVersion())
}

// listed notes a List, and whether its items are at the written objects'
// resourceVersions.
func (e *twinEnv) listed(what string, list client.ObjectList, written []client.Object, opts ...client.ListOption) (n int) {
	e.t.Helper()
	if e.list(what, list, opts...) != nil {
		return 0
	}
	rv := map[string]string{}
	for _, w := range written {
		rv[w.GetName()] = w.GetResourceVersion()
	}
	var at []string
	for _, name := range e.itemNames(list) {
		at = append(at, fmt.Sprintf("%s:%t", name[0], rv[name[0]] == name[1]))
		e.check(rv[name[0]] == name[1], "List %s right after the writes: %s at resourceVersion %s; want the write's %s", what, name[0], name[1], rv[name[0]])
	}
	e.note("at the writes' resourceVersions: %v", at)
	return len(at)
}

// itemNames returns list's items' names and resourceVersions, sorted.
func (e *twinEnv) itemNames(list client.ObjectList) [][2]string {
	var out [][2]string
	items, err := meta.ExtractList(list)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, o := range items {
		o := o.(client.Object)
		out = append(out, [2]string{o.GetName(), o.GetResourceVersion()})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}

func ryowCases() []twinCase {
	return []twinCase{
		{name: "Create with generateName then Get", writes: true, run: func(e *twinEnv) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, GenerateName: "gen-", Labels: map[string]string{"w": "1"}}}
			e.create(cm)
			e.note("named with the prefix: %t", strings.HasPrefix(cm.Name, "gen-"))
			got := &corev1.ConfigMap{}
			if err := e.c.Get(e.ctx, client.ObjectKeyFromObject(cm), got); err != nil {
				e.note("Get: %s", strings.ReplaceAll(errOf(err), cm.Name, "<name>"))
				return
			}
			e.note("Get: found, at the write's resourceVersion: %t, uid the write's: %t", got.ResourceVersion == cm.ResourceVersion, got.UID == cm.UID)
		}},
		// controller-runtime's client reads its own writes per kind and
		// representation (typed, Unstructured, PartialObjectMetadata): a
		// write is read back in the representation it was written in.
		{name: "Create of Unstructured then Get and List of Unstructured", writes: true, run: func(e *twinEnv) {
			u := uConfigMap()
			u.SetNamespace(e.ns)
			u.SetName("a")
			u.SetLabels(map[string]string{"w": "1"})
			if err := e.c.Create(e.ctx, u); err != nil {
				e.t.Fatal(err)
			}
			e.sees(u, uConfigMap())
			n := e.listed("w=1", uConfigMapList(), []client.Object{u}, client.InNamespace(e.ns), client.MatchingLabels{"w": "1"})
			e.check(n == 1, "List right after the Create: %d items; want the one created", n)
		}},
		{name: "Patch of PartialObjectMetadata then Get and List of it", writes: true, run: func(e *twinEnv) {
			e.create(cmIn(e.ns, "a", "w", "1", nil))
			m := mConfigMap()
			m.Namespace, m.Name = e.ns, "a"
			if err := e.c.Patch(e.ctx, m, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"w":"2"}}}`))); err != nil {
				e.t.Fatal(err)
			}
			got := mConfigMap()
			e.sees(m, got)
			e.listed("w=2", mConfigMapList(), []client.Object{m}, client.InNamespace(e.ns), client.MatchingLabels{"w": "2"})
		}},
		{name: "Create then List", writes: true, run: func(e *twinEnv) {
			a, b := cmIn(e.ns, "a", "w", "1", nil), cmIn(e.ns, "b", "w", "2", nil)
			e.create(a)
			e.create(b)
			e.listed("in ns", &corev1.ConfigMapList{}, []client.Object{a, b}, client.InNamespace(e.ns))
			e.listed("w=2", &corev1.ConfigMapList{}, []client.Object{a, b}, client.InNamespace(e.ns), client.MatchingLabels{"w": "2"})
		}},
		{name: "Update then Get", writes: true, run: func(e *twinEnv) {
			cm := cmIn(e.ns, "a", "w", "1", map[string]string{"v": "1"})
			e.create(cm)
			cm.Data["v"] = "2"
			if err := e.c.Update(e.ctx, cm); err != nil {
				e.t.Fatal(err)
			}
			got := &corev1.ConfigMap{}
			e.sees(cm, got)
			e.note("data: %v", got.Data)
		}},
		{name: "Update of a label then List by it", writes: true, run: func(e *twinEnv) {
			cm := cmIn(e.ns, "a", "w", "1", nil)
			e.create(cm)
			cm.Labels["w"] = "2"
			if err := e.c.Update(e.ctx, cm); err != nil {
				e.t.Fatal(err)
			}
			e.listed("w=2", &corev1.ConfigMapList{}, []client.Object{cm}, client.InNamespace(e.ns), client.MatchingLabels{"w": "2"})
			e.listed("w=1", &corev1.ConfigMapList{}, []client.Object{cm}, client.InNamespace(e.ns), client.MatchingLabels{"w": "1"})
		}},
		{name: "Update of Unstructured then Get", writes: true, run: func(e *twinEnv) {
			u := uConfigMap()
			u.SetNamespace(e.ns)
			u.SetName("a")
			if err := e.c.Create(e.ctx, u); err != nil {
				e.t.Fatal(err)
			}
			_ = unstructured.SetNestedStringMap(u.Object, map[string]string{"v": "2"}, "data")
			if err := e.c.Update(e.ctx, u); err != nil {
				e.t.Fatal(err)
			}
			got := uConfigMap()
			e.sees(u, got)
			data, _, _ := unstructured.NestedStringMap(got.Object, "data")
			e.note("data: %v", data)
		}},
		{name: "Patch then Get", writes: true, run: func(e *twinEnv) {
			cm := cmIn(e.ns, "a", "w", "1", map[string]string{"v": "1"})
			e.create(cm)
			patch := client.MergeFrom(cm.DeepCopy())
			cm.Data["v"] = "2"
			if err := e.c.Patch(e.ctx, cm, patch); err != nil {
				e.t.Fatal(err)
			}
			got := &corev1.ConfigMap{}
			e.sees(cm, got)
			e.note("data: %v", got.Data)
			raw := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"w":"3"}}}`))
			if err := e.c.Patch(e.ctx, cm, raw); err != nil {
				e.t.Fatal(err)
			}
			e.listed("w=3", &corev1.ConfigMapList{}, []client.Object{cm}, client.InNamespace(e.ns), client.MatchingLabels{"w": "3"})
		}},
		{name: "Apply typed then Get", writes: true, run: func(e *twinEnv) {
			ac := corev1ac.ConfigMap("a", e.ns).WithLabels(map[string]string{"w": "1"}).WithData(map[string]string{"v": "1"})
			if err := e.c.Apply(e.ctx, ac, client.FieldOwner("twin"), client.ForceOwnership); err != nil {
				e.t.Fatal(err)
			}
			got := &corev1.ConfigMap{}
			if e.get(key(e.ns, "a"), got) == nil {
				e.note("at the apply's resourceVersion: %t, data: %v", got.ResourceVersion == *ac.ResourceVersion, got.Data)
			}
			ac = corev1ac.ConfigMap("a", e.ns).WithLabels(map[string]string{"w": "2"}).WithData(map[string]string{"v": "2"})
			if err := e.c.Apply(e.ctx, ac, client.FieldOwner("twin"), client.ForceOwnership); err != nil {
				e.t.Fatal(err)
			}
			var l corev1.ConfigMapList
			if e.list("w=2", &l, client.InNamespace(e.ns), client.MatchingLabels{"w": "2"}) == nil && len(l.Items) == 1 {
				e.note("at the apply's resourceVersion: %t", l.Items[0].ResourceVersion == *ac.ResourceVersion)
			}
		}},
		{name: "Apply unstructured then Get", writes: true, run: func(e *twinEnv) {
			u := uConfigMap()
			u.SetNamespace(e.ns)
			u.SetName("a")
			u.SetLabels(map[string]string{"w": "1"})
			_ = unstructured.SetNestedStringMap(u.Object, map[string]string{"v": "1"}, "data")
			ac := client.ApplyConfigurationFromUnstructured(u)
			if err := e.c.Apply(e.ctx, ac, client.FieldOwner("twin"), client.ForceOwnership); err != nil {
				e.t.Fatal(err)
			}
			got := uConfigMap()
			if e.get(key(e.ns, "a"), got) == nil {
				data, _, _ := unstructured.NestedStringMap(got.Object, "data")
				e.note("data: %v", data)
			}
			e.list("w=1", uConfigMapList(), client.InNamespace(e.ns), client.MatchingLabels{"w": "1"})
		}},
		{name: "Delete by object then Get", writes: true, run: func(e *twinEnv) {
			cm := cmIn(e.ns, "a", "w", "1", nil)
			e.create(cm)
			if err := e.c.Delete(e.ctx, cm); err != nil {
				e.t.Fatal(err)
			}
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
			e.list("in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns))
		}},
		{name: "Delete of PartialObjectMetadata then Get of it", writes: true, run: func(e *twinEnv) {
			e.create(cmIn(e.ns, "a", "w", "1", nil))
			// A typed write is not waited for by reads of metadata (see
			// above): the metadata is read once its store has the object,
			// as a reconciler woken by its event reads it.
			m := mConfigMap()
			eventually(e.t, 10*time.Second, func() string {
				if err := e.c.Get(e.ctx, key(e.ns, "a"), m); err != nil {
					return err.Error()
				}
				return ""
			})
			err := e.c.Delete(e.ctx, m)
			e.note("Delete: %s", errOf(err))
			e.get(key(e.ns, "a"), mConfigMap())
			e.list("in ns", mConfigMapList(), client.InNamespace(e.ns))
		}},
		{name: "Delete of a Pod then Get", writes: true, run: func(e *twinEnv) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "p"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.com/none"}}}}
			e.create(p)
			e.sees(p, &corev1.Pod{})
			err := e.c.Delete(e.ctx, p)
			e.note("Delete: %s", errOf(err))
			e.get(key(e.ns, "p"), &corev1.Pod{})
			e.list("Pods in ns", &corev1.PodList{}, client.InNamespace(e.ns))
		}},
		{name: "Create then reads in another namespace", writes: true, run: func(e *twinEnv) {
			e.other = e.srv.Namespace(e.t)
			a, b := cmIn(e.ns, "a", "w", "1", nil), cmIn(e.other, "b", "w", "1", nil)
			e.create(a)
			e.create(b)
			e.get(key(e.other, "a"), &corev1.ConfigMap{})
			e.listed("w=1 in other", &corev1.ConfigMapList{}, []client.Object{b}, client.InNamespace(e.other), client.MatchingLabels{"w": "1"})
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
		}},
		{name: "Delete by name then Get", writes: true, run: func(e *twinEnv) {
			e.create(cmIn(e.ns, "a", "w", "1", nil))
			e.get(key(e.ns, "a"), &corev1.ConfigMap{}) // as a reconciler reads before it deletes
			err := e.c.Delete(e.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "a"}})
			e.note("Delete by name: %s", errOf(err))
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
			e.list("w=1", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.MatchingLabels{"w": "1"})
		}},
		{name: "Delete with a finalizer then Get", writes: true, run: func(e *twinEnv) {
			cm := cmIn(e.ns, "a", "w", "1", nil)
			cm.Finalizers = []string{"example.com/twin"}
			e.create(cm)
			if err := e.c.Delete(e.ctx, cm); err != nil {
				e.t.Fatal(err)
			}
			got := &corev1.ConfigMap{}
			if e.get(key(e.ns, "a"), got) == nil {
				e.note("deletionTimestamp set: %t", got.DeletionTimestamp != nil)
			}
			// Let the namespace go.
			patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
			if err := e.direct.Patch(e.ctx, got, patch); err != nil {
				e.t.Fatal(err)
			}
		}},
		{name: "DeleteAllOf then List", writes: true, run: func(e *twinEnv) {
			e.create(cmIn(e.ns, "a", "w", "1", nil))
			e.create(cmIn(e.ns, "b", "w", "1", nil))
			e.create(cmIn(e.ns, "c", "w", "2", nil))
			err := e.c.DeleteAllOf(e.ctx, &corev1.ConfigMap{}, client.InNamespace(e.ns), client.MatchingLabels{"w": "1"})
			e.note("DeleteAllOf: %s", errOf(err))
			e.list("in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns))
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
		}},
		{name: "Status update then Get", writes: true, run: func(e *twinEnv) {
			w := &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "w"}, Spec: shopv1alpha1.WidgetSpec{Owner: "o", Size: 1}}
			e.create(w)
			w.Status.Phase = "Ready"
			if err := e.c.Status().Update(e.ctx, w); err != nil {
				e.t.Fatal(err)
			}
			got := &shopv1alpha1.Widget{}
			e.sees(w, got)
			e.note("phase: %s", got.Status.Phase)
			patch := client.MergeFrom(w.DeepCopy())
			w.Status.Phase = "Sold"
			if err := e.c.Status().Patch(e.ctx, w, patch); err != nil {
				e.t.Fatal(err)
			}
			got = &shopv1alpha1.Widget{}
			e.sees(w, got)
			e.note("phase: %s", got.Status.Phase)
		}},
		{name: "A write that fails then Get", writes: true, run: func(e *twinEnv) {
			cm := cmIn(e.ns, "a", "w", "1", map[string]string{"v": "1"})
			e.create(cm)
			stale := cm.DeepCopy()
			cm.Data["v"] = "2"
			if err := e.c.Update(e.ctx, cm); err != nil {
				e.t.Fatal(err)
			}
			stale.Data["v"] = "3"
			err := e.c.Update(e.ctx, stale)
			e.note("stale Update: %s", strings.ReplaceAll(errOf(err), cm.Name, "<name>"))
			err = e.c.Create(e.ctx, cmIn(e.ns, "a", "w", "1", nil))
			e.note("Create of an existing name: %s", errOf(err))
			got := &corev1.ConfigMap{}
			e.sees(cm, got)
			e.note("data: %v", got.Data)
		}},
		{name: "twenty rounds of Update then Get", writes: true, run: func(e *twinEnv) {
			cm := cmIn(e.ns, "a", "w", "1", map[string]string{"v": "0"})
			e.create(cm)
			behind := 0
			for i := range 20 {
				cm.Data["v"] = fmt.Sprint(i + 1)
				if err := e.c.Update(e.ctx, cm); err != nil {
					e.t.Fatal(err)
				}
				got := &corev1.ConfigMap{}
				if err := e.c.Get(e.ctx, key(e.ns, "a"), got); err != nil || got.ResourceVersion != cm.ResourceVersion {
					behind++
				}
			}
			e.note("reads not at the round's write: %d of 20", behind)
		}},
		{name: "reads under writes, then the store is the server's", writes: true, run: readsUnderWrites},
	}
}

// readsUnderWrites reads the side's ConfigMaps of ns while a Writer writes
// them (about 300 a second), then compares what the side reads with a
// quorum LIST once the writes stop.
func readsUnderWrites(e *twinEnv) {
	w := testbed.StartWriter(e.t, e.srv.Config(), e.ns, testbed.WriterOptions{Rate: 300, Population: 200, MaxDuration: 3 * time.Second})
	var reads, failed atomic.Int64
	var wg sync.WaitGroup
	ctx, stop := context.WithCancel(e.ctx)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pace := time.NewTicker(2 * time.Millisecond) // 500 reads a second each, leaving the writer its share of 2 cores
			defer pace.Stop()
			for ctx.Err() == nil {
				select {
				case <-ctx.Done():
					return
				case <-pace.C:
				}
				var l corev1.ConfigMapList
				if err := e.c.List(ctx, &l, client.InNamespace(e.ns), client.DisableReadYourWritesConsistency); err != nil && ctx.Err() == nil {
					failed.Add(1)
				}
				var cm corev1.ConfigMap
				if len(l.Items) > 0 {
					if err := e.c.Get(ctx, client.ObjectKeyFromObject(&l.Items[0]), &cm, client.DisableReadYourWritesConsistency); err != nil && ctx.Err() == nil {
						cm.Name = "" // gone since the list: NotFound is right
					}
				}
				reads.Add(1)
			}
		}()
	}
	deadline := time.After(5 * time.Second)
	for w.Stats().Elapsed < 3*time.Second {
		select {
		case <-deadline:
		case <-time.After(100 * time.Millisecond): // the writer's own clock
			continue
		}
		break
	}
	stats := w.Stop()
	stop()
	wg.Wait()
	e.t.Logf("%s side: %d reads, %d failed, under %s", e.side, reads.Load(), failed.Load(), stats)
	e.note("failed lists: %d", failed.Load())
	e.check(stats.Writes() > 300, "the writer wrote %d times: no load", stats.Writes())
	var quorum corev1.ConfigMapList
	if err := e.direct.List(e.ctx, &quorum, client.InNamespace(e.ns)); err != nil {
		e.t.Fatal(err)
	}
	want := e.itemNames(&quorum)
	var got [][2]string
	eventually(e.t, 30*time.Second, func() string {
		var l corev1.ConfigMapList
		if err := e.c.List(e.ctx, &l, client.InNamespace(e.ns), client.DisableReadYourWritesConsistency); err != nil {
			return err.Error()
		}
		if got = e.itemNames(&l); !slices.Equal(got, want) {
			return fmt.Sprintf("the %s side holds %d ConfigMaps, the server %d, or at other resourceVersions", e.side, len(got), len(want))
		}
		return ""
	})
	e.note("the store is the server's quorum LIST: %t", slices.Equal(got, want))
}

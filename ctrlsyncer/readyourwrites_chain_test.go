package ctrlsyncer_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

// The tests of issue 42's read-your-own-writes defects, through the
// Client on a real kube-apiserver. The store is held just before one
// watch event (testbed's HoldWatchEvent) for as long as a test needs, so
// that each case is the same on every run.

// behind is a Client of a Manager whose client reads its own writes, with
// one syncer of T in ns, behind a proxy armed (HoldWatchEvent) before the
// syncer's watch opens, synced.
type behind[T client.Object] struct {
	c      *ctrlsyncer.Client
	direct client.Client
	ns     string
	s      *runtime.Syncer[T]
}

func newBehind[S interface{ *G }, G ~struct{ *runtime.Syncer[T] }, T client.Object](t *testing.T, arm func(p *testbed.Proxy),
	newSyncer func(manager.Manager) func(*syncerset.Set, ...runtime.Option) (S, error), opts ...runtime.Option) *behind[T] {
	t.Helper()
	srv, direct, ns := server(t)
	proxy := testbed.StartProxy(t, srv)
	arm(proxy)
	mgr := newManager(t, proxy.Config(), logr.Discard(), readsItsWrites(true))
	c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ctrlsyncer.Add(mgr, field(c), newSyncer(mgr), opts...)
	if err != nil {
		t.Fatal(err)
	}
	start(t, mgr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	return &behind[T]{c: c, direct: direct, ns: ns, s: s}
}

// typed is newBehind's syncer for a generated constructor.
func typed[F any](newSyncer F) func(manager.Manager) F {
	return func(manager.Manager) F { return newSyncer }
}

// configMaps is behind for ConfigMaps indexed by the label parent.
func configMaps(t *testing.T, arm func(p *testbed.Proxy)) *behind[*corev1.ConfigMap] {
	return newBehind(t, arm, typed(coresyncers.ConfigMapSyncerIn),
		runtime.WithIndex("parent", func(cm *corev1.ConfigMap) []string { return []string{cm.Labels["parent"]} }))
}

// stored polls the syncer's store until what it holds of name passes
// check.
func (b *behind[T]) stored(t *testing.T, name string, check func(T, bool) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		o, ok := b.s.Store().Get(b.ns, name)
		if check(o, ok) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store never reached the state wanted of %s (holds %v: %v)", name, ok, o)
		}
		time.Sleep(5 * time.Millisecond) // polling the store, with a deadline
	}
}

// waited tells whether read, given a context that ends after d, waited
// for it (or for the Client's wait limit): the store had not seen what it
// had to.
func waited(d time.Duration, read func(ctx context.Context) error) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	err := read(ctx)
	var stale *runtime.StaleReadError
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &stale) {
		return true, nil
	}
	return false, err
}

func cm(ns, name, parent string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"parent": parent}}}
}

// Issue 42, defect 1: three writes of a, p then q then r, all before the
// store saw the write to q; then the store gets that one and is held
// there. A List of q's children, by label and by index, waits for the
// program's write to r; once the store has it, a is no child of q.
func TestClientAChainOfWritesToOneObject(t *testing.T) {
	var releaseQ, release func()
	r := configMaps(t, func(p *testbed.Proxy) {
		releaseQ = p.HoldWatchEvent("MODIFIED", "a", `"parent":"q"`)
		release = p.HoldWatchEvent("MODIFIED", "a", `"parent":"r"`)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := cm(r.ns, "a", "p")
	if err := r.c.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	for _, parent := range []string{"q", "r"} {
		a.Labels["parent"] = parent
		if err := r.c.Update(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	releaseQ()
	r.stored(t, "a", func(o *corev1.ConfigMap, ok bool) bool { return ok && o.Labels["parent"] == "q" })
	for name, opt := range map[string]client.ListOption{"label": client.MatchingLabels{"parent": "q"}, "index": client.MatchingFields{"parent": "q"}} {
		var list corev1.ConfigMapList
		w, err := waited(500*time.Millisecond, func(ctx context.Context) error { return r.c.List(ctx, &list, client.InNamespace(r.ns), opt) })
		if err != nil {
			t.Fatal(err)
		}
		if !w {
			t.Errorf("List of q's children by %s, the store at the write to q: %d items at once; want it to wait for the write to r", name, len(list.Items))
		}
	}
	release()
	for name, opt := range map[string]client.ListOption{"label": client.MatchingLabels{"parent": "q"}, "index": client.MatchingFields{"parent": "q"}} {
		var list corev1.ConfigMapList
		if err := r.c.List(ctx, &list, client.InNamespace(r.ns), opt); err != nil || len(list.Items) != 0 {
			t.Fatalf("List of q's children by %s after the write to r: %d items, %v; want none", name, len(list.Items), err)
		}
	}
}

// deleteBeforeSeen: the program creates a and deletes it (as del does)
// while the store has not seen a at all, reads (which found the deletion
// seen, and forgot it), and then the store gets a's creation, not yet its
// deletion: a Get waits, and once the deletion comes it is NotFound.
func deleteBeforeSeen(t *testing.T, del func(ctx context.Context, c client.Client, created *corev1.ConfigMap) error) {
	var releaseAdd, releaseDel func()
	r := configMaps(t, func(p *testbed.Proxy) {
		releaseAdd = p.HoldWatchEvent("ADDED", "a", "")
		releaseDel = p.HoldWatchEvent("DELETED", "a", "")
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := cm(r.ns, "a", "p")
	if err := r.c.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := del(ctx, r.c, a); err != nil {
		t.Fatal(err)
	}
	if _, err := waited(200*time.Millisecond, func(ctx context.Context) error {
		return r.c.Get(ctx, client.ObjectKeyFromObject(a), &corev1.ConfigMap{})
	}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	releaseAdd()
	r.stored(t, "a", func(_ *corev1.ConfigMap, ok bool) bool { return ok })
	var got corev1.ConfigMap
	w, err := waited(500*time.Millisecond, func(ctx context.Context) error { return r.c.Get(ctx, client.ObjectKeyFromObject(a), &got) })
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		t.Fatal(err)
	case !w:
		t.Fatalf("Get of a, the store holding its creation: %v (resourceVersion %q); want it to wait for the program's deletion", err, got.ResourceVersion)
	}
	releaseDel()
	if err := r.c.Get(ctx, client.ObjectKeyFromObject(a), &got); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of a once the store saw its deletion: %v; want NotFound", err)
	}
}

// Issue 42, defect 2: a deletion recorded before the store saw the
// object's creation is not seen until the store has seen the object go.
func TestClientADeletionBeforeItsCreationIsSeen(t *testing.T) {
	deleteBeforeSeen(t, func(ctx context.Context, c client.Client, created *corev1.ConfigMap) error {
		return c.Delete(ctx, created)
	})
}

// Issue 42, defect 3: a Delete by name (no UID, as controllers write it)
// right after the Client created the object finds the UID of its create.
func TestClientDeleteByNameAfterCreate(t *testing.T) {
	deleteBeforeSeen(t, func(ctx context.Context, c client.Client, created *corev1.ConfigMap) error {
		return c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: created.Namespace, Name: created.Name}})
	})
}

// Issue 42, defect 4: a Pod with no node and no finalizers is deleted with
// two events, marked then deleted; the store held at the first, a Get
// after the Client's Delete waits for the second (the cache's Get says
// NotFound). A Pod that a finalizer keeps is read back marked at once.
func TestClientGetAfterDeleteOfAPod(t *testing.T) {
	var release func()
	b := newBehind(t, func(p *testbed.Proxy) { release = p.HoldWatchEvent("DELETED", "p", "") }, typed(coresyncers.PodSyncerIn))
	c, ns := b.c, b.ns
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod := func(name string, finalizers ...string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Finalizers: finalizers},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	}
	// kept first: p's deletion, held, holds back what comes after it.
	for _, p := range []*corev1.Pod{pod("kept", "example.com/keep"), pod("p")} {
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), &corev1.Pod{}); err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	b.stored(t, "p", func(o *corev1.Pod, ok bool) bool { return ok && o.DeletionTimestamp != nil }) // marked, its deletion held back
	var got corev1.Pod
	w, err := waited(500*time.Millisecond, func(ctx context.Context) error { return c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "p"}, &got) })
	switch {
	case err != nil:
		t.Fatal(err)
	case !w:
		t.Fatalf("Get of p after the Client deleted it, the store holding it marked: read it (deletionTimestamp %v); want a wait until it is gone", got.DeletionTimestamp)
	}
	release()
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "p"}, &got); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of p once its deletion was seen: %v; want NotFound", err)
	}
	var kept corev1.Pod
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "kept"}, &kept); err != nil || kept.DeletionTimestamp == nil {
		t.Fatalf("Get of a Pod a finalizer keeps, after its Delete: %v, deletionTimestamp %v; want it marked", err, kept.DeletionTimestamp)
	}
	kept.Finalizers = nil
	if err := b.direct.Update(ctx, &kept); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

// Issue 42, defect 5: an apply of an Unstructured
// (client.ApplyConfigurationFromUnstructured) to a resource an
// Unstructured syncer serves is recorded: the Get that follows waits for
// it; and it reaches the Manager's client with its consistency off, so
// that the Manager's cache starts no informer for the served type.
func TestClientRecordsAnUnstructuredApply(t *testing.T) {
	var release func()
	var proxy *testbed.Proxy
	b := newBehind(t, func(p *testbed.Proxy) {
		proxy, release = p, p.HoldWatchEvent("ADDED", "applied", "")
		p.RecordRequests(true)
	}, func(mgr manager.Manager) func(*syncerset.Set, ...runtime.Option) (*ctrlsyncer.DynamicSyncer[*unstructured.Unstructured], error) {
		return ctrlsyncer.Unstructured(mgr, &corev1.ConfigMap{})
	})
	c, ns := b.c, b.ns
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace(ns)
	u.SetName("applied")
	if err := unstructured.SetNestedStringMap(u.Object, map[string]string{"k": "v"}, "data"); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("test")); err != nil {
		t.Fatal(err)
	}
	got := &unstructured.Unstructured{}
	got.SetAPIVersion("v1")
	got.SetKind("ConfigMap")
	w, err := waited(500*time.Millisecond, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "applied"}, got)
	})
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		t.Fatal(err)
	case !w:
		t.Fatalf("Get after an unstructured apply, the store held before it: %v; want a wait for the apply", err)
	}
	release()
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "applied"}, got); err != nil || got.GetResourceVersion() != u.GetResourceVersion() {
		t.Fatalf("Get once the store saw the apply: %v, resourceVersion %q; want the apply's answer, %q", err, got.GetResourceVersion(), u.GetResourceVersion())
	}
	for _, req := range proxy.Requests() {
		if req.Resource() == "configmaps" && req.Method == "GET" && req.Watch() && !strings.HasPrefix(req.UserAgent, "syncer-gen/") {
			t.Errorf("a watch of ConfigMaps from %q: the Manager's cache watched a type the syncers serve", req.UserAgent)
		}
	}
}

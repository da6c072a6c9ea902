package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// grantConfigMaps lets user list, watch and get ConfigMaps in ns only, on
// the server of cfg.
func grantConfigMaps(t *testing.T, cfg *rest.Config, ns, user string) {
	t.Helper()
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cfg)
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "read-configmaps"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "read-configmaps"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "read-configmaps"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: user}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the grant to take effect", func() bool {
		_, err := kubernetes.NewForConfigOrDie(as(cfg, user)).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil
	})
}

// as returns cfg impersonating user.
func as(cfg *rest.Config, user string) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{UserName: user}
	return c
}

// keys returns the store's keys, as "namespace/name", sorted.
func keys(s *runtime.Syncer[*corev1.ConfigMap]) []string {
	var out []string
	for _, k := range s.Store().Keys() {
		out = append(out, k.String())
	}
	return out
}

// names lists "ns/cm-<i>" for each i.
func names(ns string, is ...int) []string {
	var out []string
	for _, i := range is {
		out = append(out, fmt.Sprintf("%s/cm-%04d", ns, i))
	}
	return out
}

func sorted(parts ...[]string) []string {
	out := slices.Concat(parts...)
	slices.Sort(out)
	return out
}

// One syncer over two namespaces, run as a user whose RBAC grants only
// those: each namespace is synced by requests of its own (a syncer of
// every namespace is forbidden), one store and one set of handlers hold
// both, one OnResyncStarted and one OnSync frame the first sync, and
// another namespace's objects never arrive. A namespace added at run time
// is synced and delivered between its own OnResyncStarted and OnSync; a
// namespace removed leaves the store, each of its objects told to the
// handlers once, as an inferred deletion. A namespace the user may not
// read keeps the syncer from syncing, and its error names it.
func TestSyncerOverSeveralNamespaces(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	a, b, c := srv.Namespace(t), srv.Namespace(t), srv.Namespace(t)
	const user = "team-reader"
	grantConfigMaps(t, srv.Config(), a, user)
	grantConfigMaps(t, srv.Config(), b, user)
	createConfigMaps(t, cs, a, 0, 3, nil)
	createConfigMaps(t, cs, b, 0, 2, nil)
	createConfigMaps(t, cs, c, 0, 2, nil)
	cfg := as(srv.Config(), user)

	all, err := runtime.New[*corev1.ConfigMap](cfg, configMaps)
	if err != nil {
		t.Fatal(err)
	}
	runSyncer(t, all)
	eventually(t, 30*time.Second, "the syncer of every namespace to be forbidden", func() bool {
		e := all.LastError()
		return e != nil && e.Kind == runtime.KindForbidden
	})

	s, rec := startSyncer(t, cfg, runtime.WithNamespaces(a, b), runtime.WithBackoff(20*time.Millisecond, 200*time.Millisecond))
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatalf("WaitForSync: %v (last error %v)", err, s.LastError())
	}
	if got, want := keys(s), sorted(names(a, 0, 1, 2), names(b, 0, 1)); !slices.Equal(got, want) {
		t.Fatalf("store after the sync: %v, want %v", got, want)
	}
	rec.snapshot(func(r *recorder) bool {
		if r.resyncs != 1 || r.syncs != 1 || len(r.adds) != 5 {
			t.Errorf("first sync: %d OnResyncStarted, %d OnSync, %d objects added; want 1, 1, 5 (%v)", r.resyncs, r.syncs, len(r.adds), r.order)
		}
		return true
	})
	if got := s.Namespaces(); !slices.Equal(got, sorted([]string{a, b})) {
		t.Errorf("Namespaces() = %v", got)
	}
	for ns, want := range map[string]bool{a: true, b: true, c: false} {
		if covered, synced := s.Covers(ns); covered != want || synced != want {
			t.Errorf("Covers(%s) = %v, %v; want %v", ns, covered, synced, want)
		}
	}

	createConfigMaps(t, cs, c, 10, 11, nil) // first, so that a's comes after it
	createConfigMaps(t, cs, a, 10, 11, nil)
	eventually(t, 30*time.Second, "a's new ConfigMap", func() bool { _, ok := s.Store().Get(a, "cm-0010"); return ok })
	if _, ok := s.Store().Get(c, "cm-0010"); ok || s.Store().Len() != 6 {
		t.Errorf("store holds %v: another namespace's object, or not a's and b's", keys(s))
	}

	grantConfigMaps(t, srv.Config(), c, user)
	if err := s.SetNamespaces(a, b, c); err != nil {
		t.Fatal(err)
	}
	if _, synced := s.Covers(c); synced {
		t.Error("Covers(c) synced at once: it cannot have synced yet")
	}
	eventually(t, 30*time.Second, "the handler's second OnSync", func() bool {
		return rec.snapshot(func(r *recorder) bool { return r.syncs == 2 })
	})
	if covered, synced := s.Covers(c); !covered || !synced {
		t.Errorf("Covers(c) = %v, %v after the handler's OnSync", covered, synced)
	}
	if got, want := keys(s), sorted(names(a, 0, 1, 2, 10), names(b, 0, 1), names(c, 0, 1, 10)); !slices.Equal(got, want) {
		t.Fatalf("store with c added: %v, want %v", got, want)
	}
	rec.snapshot(func(r *recorder) bool {
		first := slices.Index(r.order, "sync")
		after := func(e string) int { return first + 1 + slices.Index(r.order[first+1:], e) }
		second, resync := after("sync"), after("resync")
		for i, e := range r.order {
			if strings.HasPrefix(e, "add:"+c+"/") && (i < resync || i > second) {
				t.Errorf("c added: %v; want OnResyncStarted, c's objects, OnSync", r.order[first+1:])
				break
			}
		}
		if r.resyncs != 2 || resync == first {
			t.Errorf("c added: %d OnResyncStarted in %v, want 2", r.resyncs, r.order)
		}
		return true
	})

	if err := s.SetNamespaces(a, c); err != nil {
		t.Fatal(err)
	}
	if got, want := keys(s), sorted(names(a, 0, 1, 2, 10), names(c, 0, 1, 10)); !slices.Equal(got, want) {
		t.Errorf("store once b was removed: %v, want %v", got, want)
	}
	eventually(t, 10*time.Second, "b's objects told gone", func() bool {
		return rec.snapshot(func(r *recorder) bool { return len(r.deletes) == 2 })
	})
	createConfigMaps(t, cs, b, 20, 21, nil)
	createConfigMaps(t, cs, a, 20, 21, nil)
	eventually(t, 30*time.Second, "a's object made after b's", func() bool { _, ok := s.Store().Get(a, "cm-0020"); return ok })
	rec.snapshot(func(r *recorder) bool {
		for _, k := range names(b, 0, 1) {
			if r.deletes[k] != 1 || r.inferred[k] != 1 {
				t.Errorf("%s: %d OnDelete (%d inferred), want 1 inferred", k, r.deletes[k], r.inferred[k])
			}
		}
		if len(r.deletes) != 2 || r.adds[b+"/cm-0020"] != 0 {
			t.Errorf("deletions %v, adds %v: b's objects only, and nothing of b after", r.deletes, r.adds)
		}
		return true
	})
	if d := rec.duplicates(); len(d) > 0 {
		t.Errorf("delivered twice: %v", d)
	}

	d := srv.Namespace(t) // no grant
	denied, _ := startSyncer(t, cfg, runtime.WithNamespaces(a, d), runtime.WithBackoff(20*time.Millisecond, 200*time.Millisecond))
	eventually(t, 30*time.Second, "the namespace the user may not read to be reported", func() bool {
		e := denied.LastError()
		return e != nil && e.Kind == runtime.KindForbidden && strings.Contains(e.Resource, "in namespace "+d)
	})
	if denied.HasSynced() {
		t.Error("a syncer with a namespace it may not read has synced")
	}
	eventually(t, 30*time.Second, "a to sync by itself", func() bool { covered, synced := denied.Covers(a); return covered && synced })
	if denied.HasSynced() {
		t.Error("a syncer with a namespace it may not read has synced")
	}
}

// A syncer over several namespaces restarts warm, each namespace from a
// snapshot file of its own at its own resourceVersion: what changed while
// it was down arrives, as in a warm start of one namespace, and a
// namespace removed has its file deleted.
func TestNamespacesRestartWarmEachFromItsSnapshot(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	a, b := srv.Namespace(t), srv.Namespace(t)
	createConfigMaps(t, cs, a, 0, 20, nil)
	createConfigMaps(t, cs, b, 0, 20, nil)
	path := filepath.Join(t.TempDir(), "cms")
	first, _ := startSyncer(t, srv.Config(), runtime.WithNamespaces(a, b), runtime.WithSnapshot(path))
	if err := first.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	createConfigMaps(t, cs, b, 20, 21, nil) // b's resourceVersion moves past a's
	eventually(t, 30*time.Second, "b's new ConfigMap", func() bool { _, ok := first.Store().Get(b, "cm-0020"); return ok })
	if err := first.Close(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{a, b} {
		if _, err := os.Stat(path + "." + ns); err != nil {
			t.Fatalf("the snapshot of %s: %v", ns, err)
		}
	}

	ctx := context.Background()
	if err := cs.CoreV1().ConfigMaps(a).Delete(ctx, "cm-0003", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	createConfigMaps(t, cs, b, 30, 31, nil)
	second, rec := startSyncer(t, srv.Config(), runtime.WithNamespaces(a, b), runtime.WithSnapshot(path))
	if err := second.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if m := second.Mode(); m != runtime.ModeWarm {
		t.Errorf("Mode after the restart: %s, want warm", m)
	}
	eventually(t, 10*time.Second, "a's store to match the server", storeInMatchesServer(t, cs, second, a))
	eventually(t, 10*time.Second, "b's store to match the server", storeInMatchesServer(t, cs, second, b))
	rec.snapshot(func(r *recorder) bool {
		if k := a + "/cm-0003"; r.deletes[k] != 1 || len(r.deletes) != 1 {
			t.Errorf("deletions %v, want %s once", r.deletes, k)
		}
		return true
	})
	if err := second.SetNamespaces(a); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "." + b); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the snapshot of b, removed: %v; want it deleted", err)
	}
}

// storeInMatchesServer is storeMatchesServer for one namespace of a
// syncer that holds others too.
func storeInMatchesServer(t *testing.T, cs kubernetes.Interface, s *runtime.Syncer[*corev1.ConfigMap], ns string) func() bool {
	return func() bool {
		list, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Store().InNamespace(ns)) != len(list.Items) {
			return false
		}
		for _, want := range list.Items {
			if got, ok := s.Store().Get(ns, want.Name); !ok || got.ResourceVersion != want.ResourceVersion {
				return false
			}
		}
		return true
	}
}

// A syncer made with WithNamespaces() and no namespace has not synced
// until SetNamespaces gives its first set (an empty one too), and New
// refuses WithNamespaces with "" or beside WithNamespace; SetNamespaces
// fails on a syncer made without WithNamespaces and after Close, and a
// WaitForSync under way returns when the syncer is closed before it
// synced.
func TestNamespacesGivenLater(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	a := srv.Namespace(t)
	createConfigMaps(t, cs, a, 0, 2, nil)
	for _, opts := range [][]runtime.Option{{runtime.WithNamespaces("")}, {runtime.WithNamespace(a), runtime.WithNamespaces(a)}} {
		if _, err := runtime.New[*corev1.ConfigMap](srv.Config(), configMaps, opts...); err == nil {
			t.Errorf("New with %d namespace options: no error", len(opts))
		}
	}
	s, rec := startSyncer(t, srv.Config(), runtime.WithNamespaces())
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := s.WaitForSync(short); err == nil || s.HasSynced() {
		t.Fatal("a syncer given no namespace yet has synced")
	}
	if err := s.SetNamespaces(); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil || s.Store().Len() != 0 {
		t.Fatalf("given no namespace: WaitForSync %v, %d objects", err, s.Store().Len())
	}
	if err := s.SetNamespaces(a); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "a's objects", func() bool { return s.Store().Len() == 2 })
	eventually(t, 10*time.Second, "OnSync after a's objects", func() bool {
		return rec.snapshot(func(r *recorder) bool { return r.syncs == 2 && r.order[len(r.order)-1] == "sync" })
	})

	never, err := runtime.New[*corev1.ConfigMap](srv.Config(), configMaps, runtime.WithNamespaces())
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- never.WaitForSync(context.Background()) }()
	if err := never.Close(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err == nil {
		t.Error("WaitForSync of a syncer closed before it synced: no error")
	}

	one, _ := startSyncer(t, srv.Config(), runtime.WithNamespace(a))
	if err := one.SetNamespaces(a); err == nil {
		t.Error("SetNamespaces on a syncer of one namespace: no error")
	}
	if err := s.Close(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetNamespaces(a); err == nil {
		t.Error("SetNamespaces after Close: no error")
	}
}

package ctrlsyncer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// namedConfigMaps starts mgr with a Client whose ConfigMaps are served by
// a syncer over names, none yet.
func namedConfigMaps(t *testing.T, mgr manager.Manager, opts ...ctrlsyncer.ClientOption) (*ctrlsyncer.Client, *runtime.Syncer[*corev1.ConfigMap]) {
	t.Helper()
	c, err := ctrlsyncer.NewClient(mgr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ctrlsyncer.Add(mgr, field(c), coresyncers.ConfigMapSyncerIn, runtime.WithNames())
	if err != nil {
		t.Fatal(err)
	}
	start(t, mgr)
	return c, s
}

// A reconciler whose Role names the few ConfigMaps it reads
// (resourceNames) and no other, its ConfigMaps served by a syncer over
// names: a Get of each adds its name and answers from the store; a name
// the Role does not grant is Forbidden at once, the others unharmed; a
// List is refused with why; its own write is read back at once
// (read-your-own-writes); while another client writes the named objects
// hundreds of times a second, the store ends equal to a quorum GET of
// each name.
func TestNamedReadsUnderRBAC(t *testing.T) {
	srv, direct, ns := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, name := range []string{"a", "b", "c", "d"} {
		if err := direct.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"v": "0"}}); err != nil {
			t.Fatal(err)
		}
	}
	const user = "named-reconciler"
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "named"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a", "b", "c"},
		Verbs: []string{"get", "list", "watch", "update", "patch"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "named"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "named"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: user}}}
	if err := direct.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	if err := direct.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(srv.Config())
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}

	c, s := namedConfigMaps(t, newManager(t, cfg, logr.Discard(), readsItsWrites(true)))
	if err := s.WaitForSync(ctx); err != nil {
		t.Fatalf("a syncer over no name yet: %v", err)
	}
	for _, name := range []string{"a", "b", "c"} {
		var got corev1.ConfigMap
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &got); err != nil || got.Data["v"] != "0" {
			t.Fatalf("Get of %s: %v (%v)", name, err, got.Data)
		}
	}
	var got corev1.ConfigMap
	err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "d"}, &got)
	var nameErr *runtime.NameError
	if !apierrors.IsForbidden(err) || !errors.As(err, &nameErr) {
		t.Fatalf("Get of a name the Role does not grant: %v, want Forbidden, a *runtime.NameError", err)
	}
	if n := len(s.Names()); n != 3 {
		t.Errorf("the syncer keeps %d names (%v), want the 3 read: a refused Get leaves none", n, s.Names())
	}
	if err := c.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(ns)); err == nil {
		t.Error("a List of a type served by name was answered")
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nope"}, &got); !apierrors.IsForbidden(err) {
		t.Errorf("Get of another name: %v, want Forbidden", err)
	}

	// Its own write, read back at once.
	a := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, a); err != nil {
		t.Fatal(err)
	}
	a.Data["v"] = "mine"
	if err := c.Update(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, &got); err != nil || got.ResourceVersion != a.ResourceVersion {
		t.Fatalf("Get after its own Update: %v, resourceVersion %s, want %s", err, got.ResourceVersion, a.ResourceVersion)
	}

	// Another client writes the named objects, and others, 300 times a second.
	var writes atomic.Int64
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			tick := time.NewTicker(13 * time.Millisecond) // ~75 a second a worker
			defer tick.Stop()
			for i := 0; wctx.Err() == nil; i++ {
				select {
				case <-tick.C:
				case <-wctx.Done():
					return
				}
				name := string(rune('a' + (i+w)%4))
				if direct.Patch(wctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
					client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"data":{"v":"%d-%d"}}`, w, i))) == nil {
					writes.Add(1)
				}
			}
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for writes.Load() < 1000 && time.Now().Before(deadline) {
		for _, name := range []string{"a", "b", "c"} {
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &got); err != nil {
				t.Fatalf("Get of %s under writes: %v", name, err)
			}
		}
	}
	stop()
	wg.Wait()
	if writes.Load() < 1000 {
		t.Fatalf("only %d writes", writes.Load())
	}
	want := map[string]string{}
	for _, name := range []string{"a", "b", "c"} {
		var cm corev1.ConfigMap
		if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cm); err != nil {
			t.Fatal(err)
		}
		want[name] = cm.ResourceVersion
	}
	stored := func() map[string]string {
		out := map[string]string{}
		for _, o := range s.Store().List() {
			out[o.Name] = o.ResourceVersion
		}
		return out
	}
	for !maps.Equal(stored(), want) {
		if ctx.Err() != nil {
			t.Fatalf("the store %v never equalled a quorum GET of each name %v", stored(), want)
		}
		time.Sleep(10 * time.Millisecond) // polling the store, bounded by ctx
	}
}

// NamesDroppedAfter: a name no Get read for the period leaves the syncer
// (its object leaves the store), and the next Get of it adds it again.
func TestNamesNotReadAreDropped(t *testing.T) {
	srv, direct, ns := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, name := range []string{"a", "b"} {
		if err := direct.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	c, s := namedConfigMaps(t, newManager(t, srv.Config(), logr.Discard()), ctrlsyncer.WithReaderOptions(ctrlsyncer.NamesDroppedAfter(time.Second)))
	var got corev1.ConfigMap
	get := func(name string) {
		t.Helper()
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &got); err != nil {
			t.Fatalf("Get of %s: %v", name, err)
		}
	}
	get("a")
	began := time.Now()
	for { // b is read; a is not, and goes after a second
		get("b")
		if _, ok := s.Store().Get(ns, "a"); !ok {
			break
		}
		if time.Since(began) > 10*time.Second {
			t.Fatalf("a, not read for 10s, is still kept: names %v", s.Names())
		}
		time.Sleep(50 * time.Millisecond) // the Gets are what drops; polling with a deadline
	}
	if since := time.Since(began); since < time.Second {
		t.Errorf("a was dropped %s after its last read, before the period", since)
	}
	if names := s.Names(); len(names) != 1 || names[0].Name != "b" {
		t.Errorf("names %v, want b alone", names)
	}
	get("a")
	if _, ok := s.Store().Get(ns, "a"); !ok {
		t.Error("a Get of a dropped name did not keep it again")
	}
}

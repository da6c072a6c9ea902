package syncerset_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

var (
	configMaps = runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true,
		NewList: func() kruntime.Object { return &corev1.ConfigMapList{} }}
	namespaces = runtime.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace",
		NewList: func() kruntime.Object { return &corev1.NamespaceList{} }}
	clusterRoles = runtime.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole",
		NewList: func() kruntime.Object { return &rbacv1.ClusterRoleList{} }}
	// gizmos are served by no CRD on the test server.
	gizmos = runtime.Resource{Group: "nowhere.example.com", Version: "v1", Resource: "gizmos", Kind: "Gizmo", Namespaced: true,
		NewList: func() kruntime.Object { return &corev1.ConfigMapList{} }}
)

// connCounter counts the TCP connections of a rest.Config that are open.
func connCounter(cfg *rest.Config) (*rest.Config, *atomic.Int64) {
	var n atomic.Int64
	c := rest.CopyConfig(cfg)
	d := &net.Dialer{Timeout: 10 * time.Second}
	c.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		n.Add(1)
		return &countedConn{Conn: conn, n: &n}, nil
	}
	return c, &n
}

type countedConn struct {
	net.Conn
	n    *atomic.Int64
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.n.Add(-1) })
	return c.Conn.Close()
}

// settles polls f until it returns want or the deadline passes, and
// returns its last value: a connection dialled by a request that raced
// another's is closed soon after the HTTP/2 pool has one.
func settles(f func() int64, want int64, d time.Duration) int64 {
	deadline := time.Now().Add(d)
	for {
		if v := f(); v == want || time.Now().After(deadline) {
			return v
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Three syncers of one set start together, sync, and share one connection;
// the same three made one by one open three.
func TestSetSyncsOverOneConnection(t *testing.T) {
	srv := testbed.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg, conns := connCounter(srv.Config())

	set, err := syncerset.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := srv.Namespace(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "in-a-set"}, Data: map[string]string{"k": "v"}}
	if _, err := srv.Client().CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cms, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	nss, err := syncerset.Add[*corev1.Namespace](set, namespaces)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	set.Start(runCtx)
	defer func() { stop(); set.Wait() }()
	// Added after Start: started at once.
	roles, err := syncerset.Add[*rbacv1.ClusterRole](set, clusterRoles)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.WaitForSync(ctx); err != nil {
		t.Fatalf("WaitForSync: %v", err)
	}
	if !set.HasSynced() || set.Len() != 3 {
		t.Errorf("HasSynced %t, Len %d; want true, 3", set.HasSynced(), set.Len())
	}
	if _, ok := nss.Store().Get("", "kube-system"); !ok {
		t.Error("namespace kube-system not in the store")
	}
	if _, ok := roles.Store().Get("", "cluster-admin"); !ok {
		t.Error("clusterrole cluster-admin not in the store")
	}
	if _, ok := cms.Store().Get(ns, "in-a-set"); !ok {
		t.Errorf("configmap %s/in-a-set not in the store", ns)
	}
	if n := settles(conns.Load, 1, 5*time.Second); n != 1 {
		t.Errorf("the set's 3 syncers hold %d connections open, want 1 (HTTP/2, shared transport)", n)
	}

	// The contrast: without a set, each syncer has a transport of its own.
	alone, aloneConns := connCounter(srv.Config())
	done := make(chan error, 2)
	defer func() { stop(); <-done; <-done }()
	a, err := runtime.New[*corev1.Namespace](alone, namespaces)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runtime.New[*corev1.ConfigMap](alone, configMaps, runtime.WithNamespace("kube-system"))
	if err != nil {
		t.Fatal(err)
	}
	go func() { done <- a.Run(runCtx) }()
	go func() { done <- b.Run(runCtx) }()
	if err := a.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := aloneConns.Load(); n != 2 {
		t.Errorf("2 syncers without a set hold %d connections open, want 2: the check above proves nothing", n)
	}
}

// Asking twice with the same options gives the same syncer; other options
// another; the same resource as another type is refused.
func TestAddTwice(t *testing.T) {
	set, err := syncerset.New(&rest.Config{Host: "https://127.0.0.1:1"}, syncerset.WithDefaults(runtime.WithStripManagedFields()))
	if err != nil {
		t.Fatal(err)
	}
	a, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithNamespace("a"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithNamespace("a"))
	if err != nil {
		t.Fatal(err)
	}
	if a != again {
		t.Error("the same resource and options gave two syncers")
	}
	other, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithNamespace("b"))
	if err != nil {
		t.Fatal(err)
	}
	if other == a {
		t.Error("another namespace gave the same syncer")
	}
	// The same resource and options as another type is another syncer.
	meta, err := syncerset.Add[*metav1.PartialObjectMetadata](set, runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true,
		MetadataOnly: true, NewList: func() kruntime.Object { return &metav1.PartialObjectMetadataList{} }}, runtime.WithNamespace("a"))
	if err != nil {
		t.Fatal(err)
	}
	if again, err := syncerset.Add[*metav1.PartialObjectMetadata](set, meta.Resource(), runtime.WithNamespace("a")); err != nil || again != meta {
		t.Errorf("the metadata syncer asked again: %v; want the same", err)
	}
	if set.Len() != 3 {
		t.Errorf("Len %d, want 3", set.Len())
	}
}

// The shards of one resource are syncers of their own in one set, with
// metrics of their own.
func TestSetHoldsShards(t *testing.T) {
	var names []string
	set, err := syncerset.New(&rest.Config{Host: "https://127.0.0.1:1"}, syncerset.WithMetrics(func(resource string) runtime.Metrics {
		names = append(names, resource)
		return runtime.NopMetrics{}
	}))
	if err != nil {
		t.Fatal(err)
	}
	var shards []*runtime.Syncer[*corev1.ConfigMap]
	for i := range 2 {
		s, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithShard(i, 2))
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, s)
	}
	again, err := syncerset.Add[*corev1.ConfigMap](set, configMaps, runtime.WithShard(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if shards[0] == shards[1] || again != shards[1] || set.Len() != 2 {
		t.Errorf("shards 0/2 and 1/2 of one resource: %d syncers in the set, want 2, one each", set.Len())
	}
	if want := []string{"configmaps/v1 shard 0/2", "configmaps/v1 shard 1/2"}; !slices.Equal(names, want) {
		t.Errorf("metrics bound to %v, want %v", names, want)
	}
}

// The timeout error names each resource that did not sync and why: a CRD
// that is not installed is not-found, with a hint; the others synced and
// are not named.
func TestTimeoutNamesWhatDidNotSync(t *testing.T) {
	srv := testbed.Shared(t)
	set, err := syncerset.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := syncerset.Add[*corev1.Namespace](set, namespaces); err != nil {
		t.Fatal(err)
	}
	if _, err := syncerset.Add[*corev1.ConfigMap](set, gizmos, runtime.WithNamespace("default")); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	set.Start(ctx)
	defer func() { stop(); set.Wait() }()

	// Long enough for the namespaces to sync and gizmos' first LIST to
	// fail, however slow the machine: waited for, not guessed.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var nse *syncerset.NotSyncedError
	for {
		short, c := context.WithTimeout(wctx, 500*time.Millisecond)
		err = set.WaitForSync(short)
		c()
		if !errors.As(err, &nse) {
			t.Fatalf("WaitForSync = %v, want a *NotSyncedError", err)
		}
		if len(nse.Resources) == 1 && nse.Resources[0].Err != nil || wctx.Err() != nil {
			break
		}
	}
	if len(nse.Resources) != 1 || nse.Total != 2 {
		t.Fatalf("%d of %d not synced, want only gizmos of 2: %v", len(nse.Resources), nse.Total, err)
	}
	n := nse.Resources[0]
	if n.Resource != "gizmos.nowhere.example.com/v1 as ConfigMap" || n.Err == nil || n.Err.Kind != runtime.KindNotFound {
		t.Errorf("not synced: %s, last error %v; want gizmos.nowhere.example.com/v1 as ConfigMap, not-found", n.Resource, n.Err)
	}
	for _, want := range []string{"1 of 2 resources not synced", "gizmos.nowhere.example.com/v1 as ConfigMap: not-found", "CRD installed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(%v, DeadlineExceeded) is false", err)
	}
	var se *runtime.SyncError
	if !errors.As(err, &se) || se.Kind != runtime.KindNotFound {
		t.Errorf("errors.As(*runtime.SyncError) = %v", se)
	}
}

// Credentials that may do nothing: every resource is named, forbidden.
func TestTimeoutNamesForbidden(t *testing.T) {
	srv := testbed.Shared(t)
	set, err := syncerset.New(srv.ConfigWithToken(testbed.NobodyToken))
	if err != nil {
		t.Fatal(err)
	}
	for _, add := range []func() error{
		func() error { _, err := syncerset.Add[*corev1.Namespace](set, namespaces); return err },
		func() error { _, err := syncerset.Add[*rbacv1.ClusterRole](set, clusterRoles); return err },
	} {
		if err := add(); err != nil {
			t.Fatal(err)
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	set.Start(ctx)
	defer func() { stop(); set.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err = set.WaitForSync(wctx)
		cancel()
		var nse *syncerset.NotSyncedError
		if !errors.As(err, &nse) {
			t.Fatalf("WaitForSync = %v, want a *NotSyncedError", err)
		}
		if forbidden(nse) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not both forbidden after 30s: %v", err)
		}
	}
	if msg := err.Error(); !strings.Contains(msg, "namespaces/v1: forbidden: RBAC") || !strings.Contains(msg, "clusterroles.rbac.authorization.k8s.io/v1: forbidden") {
		t.Errorf("error %q does not name both resources as forbidden", msg)
	}
}

func forbidden(e *syncerset.NotSyncedError) int {
	n := 0
	for _, r := range e.Resources {
		if r.Err != nil && r.Err.Kind == runtime.KindForbidden {
			n++
		}
	}
	return n
}

// A set that was not started says so.
func TestNotStarted(t *testing.T) {
	set, err := syncerset.New(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := syncerset.Add[*corev1.Namespace](set, namespaces); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err = set.WaitForSync(ctx)
	if err == nil || !strings.Contains(err.Error(), "namespaces/v1: no failure yet, still receiving: not started") {
		t.Errorf("WaitForSync of a set never started = %v", err)
	}
}

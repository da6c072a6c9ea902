package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// handlerState is a Handler that rebuilds the objects it was told of, key to
// resourceVersion, from its calls alone.
type handlerState struct {
	mu   sync.Mutex
	objs map[string]string
	gone map[string]runtime.Deletion // the last deletion of each key
	errs []error
}

func newHandlerState() *handlerState {
	return &handlerState{objs: map[string]string{}, gone: map[string]runtime.Deletion{}}
}

func (s *handlerState) OnResyncStarted() {}
func (s *handlerState) OnSync()          {}
func (s *handlerState) OnError(err error) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
}
func (s *handlerState) OnAdd(cm *corev1.ConfigMap) { s.set(cm) }
func (s *handlerState) OnUpdate(_, cm *corev1.ConfigMap) {
	s.set(cm)
}
func (s *handlerState) OnDelete(cm *corev1.ConfigMap, how runtime.Deletion) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objs, key(cm))
	s.gone[key(cm)] = how
}
func (s *handlerState) set(cm *corev1.ConfigMap) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objs[key(cm)] = cm.ResourceVersion
}
func (s *handlerState) get() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.objs)
}

// grantNames lets user get, list and watch the ConfigMaps of ns named
// names, and no other: a Role whose rule names them in resourceNames.
func grantNames(t *testing.T, cs kubernetes.Interface, ns, user string, names ...string) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "named-configmaps"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"},
			ResourceNames: names, Verbs: []string{"get", "list", "watch"}}}}
	if _, err := cs.RbacV1().Roles(ns).Get(ctx, role.Name, metav1.GetOptions{}); err == nil {
		if _, err := cs.RbacV1().Roles(ns).Update(ctx, role, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: user}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// churn writes to ConfigMaps cm-0000..cm-<n-1> of ns at 300 a second
// from 4 workers: mostly updates, a deletion now and then, and a creation
// of a name deleted, until stop.
type churn struct {
	writes atomic.Int64
	stop   func() int64
}

func churnNames(t *testing.T, cs kubernetes.Interface, ns string, n int) *churn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &churn{}
	limiter := flowcontrol.NewTokenBucketRateLimiter(300, 10)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for ctx.Err() == nil {
				if limiter.Wait(ctx) != nil {
					return
				}
				name := fmt.Sprintf("cm-%04d", rng.IntN(n))
				var err error
				switch r := rng.IntN(100); {
				case r < 4:
					err = cs.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{})
				case r < 12:
					_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
				default:
					_, err = cs.CoreV1().ConfigMaps(ns).Patch(ctx, name, types.MergePatchType,
						fmt.Appendf(nil, `{"data":{"w":"%d"}}`, rng.Int()), metav1.PatchOptions{})
				}
				if err == nil {
					c.writes.Add(1)
				}
			}
		})
	}
	c.stop = sync.OnceValue(func() int64 { cancel(); wg.Wait(); return c.writes.Load() })
	t.Cleanup(func() { c.stop() })
	return c
}

// namesCounted keeps what runtime.NamesMetrics was last told.
type namesCounted struct {
	runtime.NopMetrics
	n, refused atomic.Int64
}

func (m *namesCounted) Names(n, refused int) { m.n.Store(int64(n)); m.refused.Store(int64(refused)) }
func (m *namesCounted) get() (int, int)      { return int(m.n.Load()), int(m.refused.Load()) }

func cmKeys(ns string, is ...int) []runtime.Key {
	out := make([]runtime.Key, len(is))
	for i, n := range is {
		out[i] = runtime.Key{Namespace: ns, Name: fmt.Sprintf("cm-%04d", n)}
	}
	return out
}

func span(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// A syncer over names, run as a user whose Role names the objects it may
// read (resourceNames) and no other: each name is synced by a LIST and
// WATCH of its own; a name the Role does not grant is refused alone, as a
// *NameError that apierrors.IsForbidden, and holds back neither the sync
// of the others nor their events; names added and removed while writes
// flow are synced and taken out; a grant given later starts the refused
// name with no restart. At the end the store, and the state rebuilt from
// the handler calls alone, equal a quorum GET of each name.
func TestNamesUnderRBAC(t *testing.T) {
	srv := testbed.Shared(t)
	cfg := srv.Config()
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := srv.Namespace(t)
	ctx := context.Background()
	createConfigMaps(t, cs, ns, 0, 60, nil)
	const user = "named-reader"
	granted := func(is ...int) []string {
		var out []string
		for _, k := range cmKeys(ns, is...) {
			out = append(out, k.Name)
		}
		return out
	}
	grantNames(t, cs, ns, user, granted(append([]int{0, 1, 2}, span(4, 40)...)...)...) // not cm-0003
	userCS := kubernetes.NewForConfigOrDie(as(cfg, user))
	eventually(t, 10*time.Second, "the grant to take effect", func() bool {
		_, err := userCS.CoreV1().ConfigMaps(ns).Get(ctx, "cm-0000", metav1.GetOptions{})
		return err == nil
	})
	if _, err := userCS.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("a LIST of every ConfigMap as %s: %v, want Forbidden (the Role must name its objects)", user, err)
	}

	var m namesCounted
	s, err := runtime.New[*corev1.ConfigMap](as(cfg, user), configMaps, runtime.WithNames(cmKeys(ns, 0, 1, 2, 3)...),
		runtime.WithBackoff(100*time.Millisecond, time.Second), runtime.WithMetrics(&m))
	if err != nil {
		t.Fatal(err)
	}
	st := newHandlerState()
	s.AddHandler(st)
	runSyncer(t, s)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.WaitForSync(wctx); err != nil {
		t.Fatalf("WaitForSync with one name refused: %v", err)
	}
	var nameErr *runtime.NameError
	if err := s.WaitForName(wctx, cmKeys(ns, 3)[0]); !errors.As(err, &nameErr) || !apierrors.IsForbidden(err) || nameErr.Key != cmKeys(ns, 3)[0] {
		t.Fatalf("WaitForName of the name not granted: %v, want a *runtime.NameError of it, Forbidden", err)
	}
	if err := s.WaitForName(wctx, cmKeys(ns, 1)[0]); err != nil {
		t.Fatalf("WaitForName of a granted name: %v", err)
	}
	if got, want := keys(s), sorted(names(ns, 0, 1, 2)); !slices.Equal(got, want) {
		t.Fatalf("store %v, want %v", got, want)
	}
	if n, refused := m.get(); n != 4 || refused != 1 {
		t.Errorf("NamesMetrics told %d names, %d refused; want 4, 1", n, refused)
	}

	// Writes flow to every ConfigMap of ns, named or not; names come and go.
	w := churnNames(t, cs, ns, 40)
	eventually(t, 20*time.Second, "an update of cm-0001 through the refused name's retries", func() bool {
		o, ok := s.Store().Get(ns, "cm-0001")
		cur, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "cm-0001", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return !ok
		}
		return ok && err == nil && o.ResourceVersion == cur.ResourceVersion && w.writes.Load() > 100
	})
	removed := map[string]bool{}
	for round := range 8 {
		before := w.writes.Load()
		eventually(t, 20*time.Second, "150 writes between two changes of the names", func() bool { return w.writes.Load() >= before+150 })
		add := cmKeys(ns, span(4+4*round, 8+4*round)...)
		if err := s.AddNames(add...); err != nil {
			t.Fatal(err)
		}
		drop := cmKeys(ns, 4*round, 2+4*round) // two names the previous round added, synced
		if round%2 == 1 {
			if err := s.RemoveNames(drop...); err != nil {
				t.Fatal(err)
			}
			for _, k := range drop {
				removed[k.String()] = true
			}
		}
		for _, k := range add {
			if err := s.WaitForName(wctx, k); err != nil && !removed[k.String()] {
				t.Fatalf("round %d: WaitForName(%s): %v", round, k, err)
			}
		}
	}
	grantNames(t, cs, ns, user, granted(span(0, 40)...)...) // cm-0003 too, now
	if err := s.AddNames(cmKeys(ns, 3)...); err != nil {    // already there: nothing changes
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the name granted later to sync", func() bool { return s.NameErr(cmKeys(ns, 3)[0]) == nil })
	if n, refused := m.get(); n != len(s.Names()) || refused != 0 {
		t.Errorf("NamesMetrics told %d names, %d refused; want %d, 0", n, refused, len(s.Names()))
	}
	before := w.writes.Load()
	eventually(t, 20*time.Second, "300 writes more", func() bool { return w.writes.Load() >= before+300 })
	if m := s.Mode(); m != runtime.ModeWatchList {
		t.Errorf("mode %s, want watchlist: a WatchList of one name is the cheap read of it", m)
	}
	n := w.stop()
	t.Logf("writes: %d", n)
	if n < 1000 {
		t.Fatalf("only %d writes flowed", n)
	}

	// The store, and the state rebuilt from handler calls, against a quorum
	// GET of each name.
	want := func() map[string]string {
		out := map[string]string{}
		for _, k := range s.Names() {
			cm, err := cs.CoreV1().ConfigMaps(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				t.Fatal(err)
			default:
				out[k.String()] = cm.ResourceVersion
			}
		}
		return out
	}
	stored := func() map[string]string {
		out := map[string]string{}
		for _, o := range s.Store().List() {
			out[key(o)] = o.ResourceVersion
		}
		return out
	}
	var w1 map[string]string
	eventually(t, 20*time.Second, "the store and the handlers' state to equal a quorum GET of each name", func() bool {
		w1 = want()
		return maps.Equal(stored(), w1) && maps.Equal(st.get(), w1)
	})
	// The writes delete and create the named objects at random: at the end
	// some are absent (19 present in one run, where a bound of 20 failed).
	if names := len(s.Names()); len(w1) < names/2 {
		t.Errorf("only %d named objects of %d names at the end: the test proves little", len(w1), names)
	}
	for k := range removed {
		if _, ok := stored()[k]; ok {
			t.Errorf("removed name %s still in the store", k)
		}
	}
	st.mu.Lock()
	inferred := 0
	for k := range removed {
		if st.gone[k] == runtime.DeletionInferred {
			inferred++
		}
	}
	st.mu.Unlock()
	if inferred == 0 {
		t.Errorf("no removed name was told as OnDelete(DeletionInferred)")
	}
	var forbidden int
	st.mu.Lock()
	for _, err := range st.errs {
		if errors.As(err, &nameErr) || apierrors.IsForbidden(err) {
			forbidden++
		}
	}
	st.mu.Unlock()
	if forbidden == 0 {
		t.Errorf("OnError was never told of the refused name")
	}
}

// clusterRoles is the Resource of rbac/v1 ClusterRoles: cluster-scoped.
var clusterRoles = runtime.Resource{
	Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole",
	NewList: func() kruntime.Object { return &rbacv1.ClusterRoleList{} },
}

// A syncer over names of a cluster-scoped resource: keys without a
// namespace; a name that does not exist yet is synced as absent and
// arrives when created; keys with a namespace are refused.
func TestNamesOfAClusterScopedResource(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ctx := context.Background()
	absent := "syncer-gen-names-" + srv.Namespace(t)
	if _, err := runtime.New[*rbacv1.ClusterRole](srv.Config(), clusterRoles, runtime.WithNames(runtime.Key{Namespace: "x", Name: "admin"})); err == nil {
		t.Fatal("a namespaced key of a cluster-scoped resource was accepted")
	}
	s, err := runtime.New[*rbacv1.ClusterRole](srv.Config(), clusterRoles, runtime.WithNames(runtime.Key{Name: "admin"}, runtime.Key{Name: absent}))
	if err != nil {
		t.Fatal(err)
	}
	runSyncer(t, s)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.WaitForSync(wctx); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitForName(wctx, runtime.Key{Name: absent}); err != nil {
		t.Fatalf("WaitForName of an absent name: %v", err)
	}
	if got := s.Store().Keys(); len(got) != 1 || got[0].Name != "admin" {
		t.Fatalf("store %v, want admin alone", got)
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: absent}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(context.Background(), absent, metav1.DeleteOptions{}) })
	eventually(t, 10*time.Second, "the created name to arrive", func() bool { _, ok := s.Store().Get("", absent); return ok })
	if err := s.WaitForName(wctx, runtime.Key{Name: "edit"}); !errors.Is(err, runtime.ErrNotANameOfTheSyncer) {
		t.Errorf("WaitForName of a name not added: %v, want ErrNotANameOfTheSyncer", err)
	}
}

// TestANameIsSyncedInOneRequest syncs three names (one absent) on a real
// server: each name's sync is its WatchList alone, with no LIST of one item
// to count its objects first (a name has one at most: the count cost a
// request per name and per sync, 2,000 requests for 1,000 names).
func TestANameIsSyncedInOneRequest(t *testing.T) {
	srv := testbed.Shared(t)
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ns := srv.Namespace(t)
	testbed.FillConfigMaps(t, cs, ns, 2, 100)
	list, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.Items) != 2 {
		t.Fatalf("%v, %d ConfigMaps", err, len(list.Items))
	}
	keys := []runtime.Key{{Namespace: ns, Name: list.Items[0].Name}, {Namespace: ns, Name: list.Items[1].Name}, {Namespace: ns, Name: "absent"}}
	reqs := &requestLog{}
	cfg := srv.Config()
	cfg.Wrap(reqs.wrap)
	s, err := runtime.New[*corev1.ConfigMap](cfg, configMaps, runtime.WithNames(keys...))
	if err != nil {
		t.Fatal(err)
	}
	runSyncer(t, s)
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if n := s.Store().Len(); n != 2 {
		t.Errorf("%d objects in the store, want the 2 named that exist", n)
	}
	if c := reqs.counts(); c.watchLists != len(keys) || c.lists+c.metadataLists+c.gets != 0 {
		t.Errorf("requests %+v: want %d WatchLists, one a name, and nothing else", c, len(keys))
	}
}

// maxHeapPerName bounds what a name costs a syncer's heap once synced,
// its watch open: 89 KiB before a name's watch read through a buffer of
// its own size and the names shared one codec (issue 45: 1,000 names of a
// bench program peaked 127 MiB over 20 names'), 16 KiB after; the bound
// leaves room for the Go and client-go versions to move it.
const maxHeapPerName = 32 << 10

// TestANameCostsLittleMemory syncs 1,000 names of ConfigMaps that do not
// exist on a real server, each name its own WatchList, and bounds the heap
// the syncer holds once synced, per name.
func TestANameCostsLittleMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	const names = 1000
	srv := testbed.Shared(t)
	ns := srv.Namespace(t)
	keys := make([]runtime.Key, names)
	for i := range keys {
		keys[i] = runtime.Key{Namespace: ns, Name: fmt.Sprintf("absent-%04d", i)}
	}
	heap := func() uint64 {
		var m goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	cfg := srv.Config()
	cfg.QPS = -1 // no client-side limit: 1,000 WatchLists at once
	s, err := runtime.New[*corev1.ConfigMap](cfg, configMaps, runtime.WithNames(keys...))
	if err != nil {
		t.Fatal(err)
	}
	runSyncer(t, s)
	if err := s.WaitForSync(ctxTimeout(t, time.Minute)); err != nil {
		t.Fatal(err)
	}
	perName := (int64(heap()) - int64(before)) / names
	t.Logf("%d names synced: %d KiB of heap a name", names, perName>>10)
	if perName > maxHeapPerName {
		t.Errorf("%d KiB of heap a name once synced, over the bound of %d KiB", perName>>10, maxHeapPerName>>10)
	}
	goruntime.KeepAlive(s)
}

// TestNamesOfLargeObjectsKeepNoFrameBuffers syncs 100 names of ConfigMaps
// of 200 KiB on a real server: once synced, the heap the syncer holds over
// its store's objects (Store.Bytes) is a name's own cost, not a buffer of
// the largest frame kept by each name's open watch (343 KiB a name before
// frames were read into buffers shared by every watch: issue 45; 23 after).
func TestNamesOfLargeObjectsKeepNoFrameBuffers(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	const names, size = 100, 200 << 10
	srv := testbed.Shared(t)
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ns := srv.Namespace(t)
	testbed.FillConfigMaps(t, cs, ns, names, size)
	list, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.Items) != names {
		t.Fatalf("%v, %d ConfigMaps", err, len(list.Items))
	}
	keys := make([]runtime.Key, names)
	for i, cm := range list.Items {
		keys[i] = runtime.Key{Namespace: ns, Name: cm.Name}
	}
	list = nil
	heap := func() int64 {
		var m goruntime.MemStats
		goruntime.GC()
		goruntime.GC() // the frames' buffers left in their sync.Pool go at the second
		goruntime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	before := heap()
	s, err := runtime.New[*corev1.ConfigMap](srv.Config(), configMaps, runtime.WithNames(keys...))
	if err != nil {
		t.Fatal(err)
	}
	runSyncer(t, s)
	if err := s.WaitForSync(ctxTimeout(t, time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n := s.Store().Len(); n != names {
		t.Fatalf("%d objects in the store, want %d", n, names)
	}
	over := (heap() - before - s.Store().Bytes()) / names
	t.Logf("%d names of %d KiB synced: %d KiB of heap a name over the store's %d KiB", names, size>>10, over>>10, s.Store().Bytes()>>10)
	if over > maxHeapPerName {
		t.Errorf("%d KiB of heap a name over its object, over the bound of %d KiB: a buffer of its frame kept?", over>>10, maxHeapPerName>>10)
	}
	goruntime.KeepAlive(s)
}

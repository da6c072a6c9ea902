package ctrlsyncer_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/queue"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// backlog is how many ConfigMaps a restart finds.
const backlog = 10_000

// lastName is the name of the backlog's last ConfigMap, in the order a
// list gives them: the last a FIFO queue would hand out.
var lastName = fmt.Sprintf("cm-%05d", backlog-1)

// After a restart over 10,000 objects, a live change is reconciled before
// the backlog drains: the objects of the initial list are enqueued at low
// priority (IsInInitialList, as controller-runtime's Kind source and
// priority queue do), a live change at the normal one. Through the queue
// package (a cold start and a warm one from a snapshot) and through a
// Manager's controller on ctrlsyncer, with controller-runtime's cache on
// the same Manager as the reference. The live change updates the backlog's
// last object: without the priority it is reconciled 10,000th.
func TestLiveChangeOvertakesTheInitialList(t *testing.T) {
	srv, _, ns := server(t)
	cs := srv.Client()
	ctx := context.Background()
	started := time.Now()
	createConfigMaps(t, cs, ns, backlog)
	t.Logf("%d ConfigMaps created in %s", backlog, time.Since(started).Round(time.Millisecond))
	snapshot := filepath.Join(t.TempDir(), "configmaps.snapshot")
	round := 0
	change := func(t *testing.T) {
		t.Helper()
		round++
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, lastName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data = map[string]string{"round": fmt.Sprint(round)}
		if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// The queue package: a worker that starts once the live change is
	// enqueued takes it first.
	viaQueue := func(t *testing.T, mode runtime.Mode) {
		s, err := runtime.New[*corev1.ConfigMap](srv.Config(), coresyncers.ConfigMapResource,
			runtime.WithNamespace(ns), runtime.WithSnapshot(snapshot))
		if err != nil {
			t.Fatal(err)
		}
		q := queue.NewPriority(workqueue.DefaultTypedControllerRateLimiter[runtime.Key]())
		defer q.ShutDown()
		s.AddHandler(queue.Enqueue(q, queue.ObjectKey[*corev1.ConfigMap]))
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- s.Run(runCtx) }()
		defer func() {
			stop()
			if err := <-done; err != nil { // saves the snapshot
				t.Error(err)
			}
		}()
		waitCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if err := s.WaitForSync(waitCtx); err != nil {
			t.Fatal(err)
		}
		if s.Mode() != mode {
			t.Fatalf("synced in mode %s, want %s", s.Mode(), mode)
		}
		n := s.Store().Len() // the backlog and the live objects of earlier subtests
		if q.Len() != n || n < backlog {
			t.Fatalf("%d keys queued after the sync of %d objects, want as many, at least %d", q.Len(), n, backlog)
		}
		change(t)
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "live-" + fmt.Sprint(round)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, time.Minute, func() string { // the update comes before the create: one handler, in order
			if got := q.Len(); got != n+1 {
				return fmt.Sprintf("%d keys queued, want %d once the live create is", got, n+1)
			}
			return ""
		})
		var got []string
		for range 3 {
			k, _ := q.Get()
			got = append(got, k.Name)
			q.Done(k)
		}
		if want := fmt.Sprint([]string{lastName, "live-" + fmt.Sprint(round), "cm-00000"}); fmt.Sprint(got) != want {
			t.Errorf("a worker took %v first, want %v: the live changes before the %d objects of the initial list", got, want, n)
		}
	}
	t.Run("queue", func(t *testing.T) { viaQueue(t, runtime.ModeWatchList) })
	t.Run("queue-warm", func(t *testing.T) { viaQueue(t, runtime.ModeWarm) }) // from the snapshot the first run saved

	// A Manager's controller, one worker, whose first reconcile waits
	// until the live change reached the controller's queue.
	viaManager := func(t *testing.T, syncers bool) {
		mgr := newManager(t, srv.Config(), logr.Discard(), func(o *ctrl.Options) {
			o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}}
		})
		r := &gated{gate: make(chan struct{}), entered: make(chan struct{})}
		sig := &signalling{name: lastName, updated: make(chan struct{}), inner: &handler.TypedEnqueueRequestForObject[*corev1.ConfigMap]{}}
		b := ctrl.NewControllerManagedBy(mgr).Named(fmt.Sprintf("backlog-%t", syncers)).
			WithOptions(controller.TypedOptions[reconcile.Request]{MaxConcurrentReconciles: 1, SkipNameValidation: new(true)})
		if syncers {
			c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)))
			if err != nil {
				t.Fatal(err)
			}
			s, err := ctrlsyncer.Add(mgr, field(c), coresyncers.ConfigMapSyncerIn)
			if err != nil {
				t.Fatal(err)
			}
			b = b.WatchesRawSource(ctrlsyncer.Source(s, handler.TypedEventHandler[*corev1.ConfigMap, reconcile.Request](sig)))
		} else {
			b = b.Watches(&corev1.ConfigMap{}, handler.EventHandler(objectSignalling{sig}))
		}
		if err := b.Complete(r); err != nil {
			t.Fatal(err)
		}
		started := time.Now()
		start(t, mgr)
		select {
		case <-r.entered: // the sources synced: every object of the initial list is queued
		case <-time.After(2 * time.Minute):
			t.Fatal("no reconcile 2 minutes after the start")
		}
		synced := time.Since(started)
		change(t)
		select {
		case <-sig.updated:
		case <-time.After(time.Minute):
			t.Fatal("the live change did not reach the controller within a minute")
		}
		close(r.gate)
		eventually(t, time.Minute, func() string {
			if r.position(lastName) < 0 {
				return "the live change not reconciled"
			}
			return ""
		})
		// 0 is the first object of the initial list, whose reconcile was
		// under way when the live change came.
		if n := r.position(lastName); n != 1 {
			t.Errorf("the live change was reconciled %d after the start, want 1 (right after the reconcile under way)", n)
		}
		t.Logf("synced in %s; the live change reconciled at position %d", synced.Round(time.Millisecond), r.position(lastName))
	}
	t.Run("manager-syncer", func(t *testing.T) { viaManager(t, true) })
	t.Run("manager-cache", func(t *testing.T) { viaManager(t, false) })
}

// gated is a reconciler whose calls wait until gate is closed, and which
// records the order of the keys it reconciles.
type gated struct {
	gate    chan struct{}
	entered chan struct{}
	once    sync.Once
	mu      sync.Mutex
	order   []string
}

func (r *gated) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.mu.Lock()
	r.order = append(r.order, req.Name)
	r.mu.Unlock()
	r.once.Do(func() { close(r.entered) })
	select {
	case <-r.gate:
	case <-ctx.Done():
	}
	return reconcile.Result{}, nil
}

// position returns how many reconciles came before the first of name, or -1.
func (r *gated) position(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, n := range r.order {
		if n == name {
			return i
		}
	}
	return -1
}

// signalling passes events to inner and closes updated once an update of
// name was enqueued.
type signalling struct {
	inner   handler.TypedEventHandler[*corev1.ConfigMap, reconcile.Request]
	name    string
	updated chan struct{}
	once    sync.Once
}

func (s *signalling) Create(ctx context.Context, e event.TypedCreateEvent[*corev1.ConfigMap], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	s.inner.Create(ctx, e, q)
}

func (s *signalling) Update(ctx context.Context, e event.TypedUpdateEvent[*corev1.ConfigMap], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	s.inner.Update(ctx, e, q)
	if e.ObjectNew.Name == s.name && e.ObjectOld.ResourceVersion != e.ObjectNew.ResourceVersion {
		s.once.Do(func() { close(s.updated) })
	}
}

func (s *signalling) Delete(ctx context.Context, e event.TypedDeleteEvent[*corev1.ConfigMap], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	s.inner.Delete(ctx, e, q)
}

func (s *signalling) Generic(ctx context.Context, e event.TypedGenericEvent[*corev1.ConfigMap], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	s.inner.Generic(ctx, e, q)
}

// objectSignalling is signalling for the Manager's cache, whose events
// carry client.Objects.
type objectSignalling struct{ s *signalling }

func (o objectSignalling) Create(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	o.s.Create(ctx, event.TypedCreateEvent[*corev1.ConfigMap]{Object: e.Object.(*corev1.ConfigMap), IsInInitialList: e.IsInInitialList}, q)
}

func (o objectSignalling) Update(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	o.s.Update(ctx, event.TypedUpdateEvent[*corev1.ConfigMap]{ObjectOld: e.ObjectOld.(*corev1.ConfigMap), ObjectNew: e.ObjectNew.(*corev1.ConfigMap)}, q)
}

func (o objectSignalling) Delete(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	o.s.Delete(ctx, event.TypedDeleteEvent[*corev1.ConfigMap]{Object: e.Object.(*corev1.ConfigMap), DeleteStateUnknown: e.DeleteStateUnknown}, q)
}

func (o objectSignalling) Generic(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	o.s.Generic(ctx, event.TypedGenericEvent[*corev1.ConfigMap]{Object: e.Object.(*corev1.ConfigMap)}, q)
}

// createConfigMaps creates n empty ConfigMaps cm-00000... in ns, with 32
// requests in flight on the client's one connection.
func createConfigMaps(t *testing.T, cs kubernetes.Interface, ns string, n int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	next := make(chan int)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range next {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%05d", i)}}
				if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					select {
					case errs <- err:
						cancel()
					default:
					}
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

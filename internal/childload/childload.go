package childload

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// Label names a child's parent.
const Label = "childload.syncer-gen.io/parent"

// Reconciler makes each parent's child.
type Reconciler struct {
	Client client.Client

	reconciles, made, busy atomic.Int64
	last                   atomic.Int64 // when the last reconcile began, in Unix nanoseconds
}

// Reconciles returns how many reconciles ran, and how many children they made.
func (r *Reconciler) Reconciles() (reconciles, made int64) { return r.reconciles.Load(), r.made.Load() }

// Reconcile makes req's child, or brings its size up to date.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.reconciles.Add(1)
	r.busy.Add(1)
	defer r.busy.Add(-1)
	r.last.Store(time.Now().UnixNano())
	var w shopv1alpha1.Widget
	if err := r.Client.Get(ctx, req.NamespacedName, &w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var kids corev1.ConfigMapList
	if err := r.Client.List(ctx, &kids, client.InNamespace(w.Namespace), client.MatchingLabels{Label: w.Name}); err != nil {
		return reconcile.Result{}, err
	}
	size := strconv.FormatInt(int64(w.Spec.Size), 10)
	if len(kids.Items) == 0 {
		kid := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, GenerateName: w.Name + "-", Labels: map[string]string{Label: w.Name}},
			Data: map[string]string{"size": size}}
		if err := controllerutil.SetControllerReference(&w, kid, r.Client.Scheme()); err != nil {
			return reconcile.Result{}, err
		}
		if err := r.Client.Create(ctx, kid); err != nil {
			return reconcile.Result{}, err
		}
		r.made.Add(1)
		return reconcile.Result{}, nil
	}
	if kid := &kids.Items[0]; kid.Data["size"] != size {
		kid.Data["size"] = size
		return reconcile.Result{}, r.Client.Update(ctx, kid)
	}
	return reconcile.Result{}, nil
}

// options lets several Managers of one process run the controller (tests,
// the bench's contenders).
func options(workers int) controller.Options {
	skip := true
	return controller.Options{MaxConcurrentReconciles: workers, SkipNameValidation: &skip}
}

// SetupWithManager watches parents and their children with mgr's cache, r
// reading through mgr's client.
func (r *Reconciler) SetupWithManager(mgr manager.Manager, workers int) error {
	r.Client = mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).For(&shopv1alpha1.Widget{}).Owns(&corev1.ConfigMap{}).
		WithOptions(options(workers)).Named("childload").Complete(r)
}

// SetupWithSyncers watches parents and their children with syncers, of ns,
// r reading through a ctrlsyncer.Client made with opts.
func (r *Reconciler) SetupWithSyncers(mgr manager.Manager, ns string, workers int, opts ...ctrlsyncer.ClientOption) error {
	if _, err := ctrlsyncer.NewClient(mgr, append([]ctrlsyncer.ClientOption{ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns))}, opts...)...); err != nil {
		return err
	}
	r.Client = mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).
		WatchesRawSource(ctrlsyncer.For(mgr, &r.Client, shopsyncers.WidgetSyncerIn)).
		WatchesRawSource(ctrlsyncer.Owns(mgr, &r.Client, coresyncers.ConfigMapSyncerIn, &shopv1alpha1.Widget{},
			ctrlsyncer.WithOptions(runtime.WithLabelSelector(Label)))).
		WithOptions(options(workers)).Named("childload").Complete(r)
}

// Churn makes parents parents in ns and updates them, rate writes a
// second, until d has passed: while it makes them, one write in three
// makes the next parent and the others update those made, one after the
// other, so that a parent just made is updated again before the watch of a
// slow client has shown its first reconcile's child; then it updates each
// parent every parents/rate seconds. It returns the number of updates.
func Churn(ctx context.Context, c client.Client, ns string, parents, rate int, d time.Duration) (int, error) {
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	made, updates := 0, 0
	for i, end := 0, time.Now().Add(d); time.Now().Before(end) || made < parents; i++ {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return updates, ctx.Err()
		}
		if made < parents && (made == 0 || i%3 == 0) {
			if err := c.Create(ctx, &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("p-%03d", made)},
				Spec: shopv1alpha1.WidgetSpec{Owner: "churn", Size: 1}}); err != nil {
				return updates, err
			}
			made++
			continue
		}
		var w shopv1alpha1.Widget
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: fmt.Sprintf("p-%03d", updates%made)}, &w); err != nil {
			return updates, err
		}
		w.Spec.Size = int32(updates%1000 + 2)
		if err := c.Update(ctx, &w); err != nil {
			return updates, err
		}
		updates++
	}
	return updates, nil
}

// Settle waits until every parent in ns has a child of its size on the
// server (read with direct, which reads the server) and r has been idle
// for a second, or ctx ends. It returns the number of parents with more
// than one child.
func (r *Reconciler) Settle(ctx context.Context, direct client.Client, ns string) (dups int, err error) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		dups, current, err := Children(ctx, direct, ns)
		if err != nil {
			return 0, err
		}
		if current && r.busy.Load() == 0 && time.Since(time.Unix(0, r.last.Load())) > time.Second {
			return dups, nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return dups, fmt.Errorf("childload: not settled: %w", ctx.Err())
		}
	}
}

// Children reads the parents and children of ns on the server: the number
// of parents with more than one child, and whether every parent has a
// child of its size.
func Children(ctx context.Context, direct client.Client, ns string) (dups int, current bool, err error) {
	var ws shopv1alpha1.WidgetList
	if err := direct.List(ctx, &ws, client.InNamespace(ns)); err != nil {
		return 0, false, err
	}
	var kids corev1.ConfigMapList
	if err := direct.List(ctx, &kids, client.InNamespace(ns), client.HasLabels{Label}); err != nil {
		return 0, false, err
	}
	size := map[string]string{}
	for _, w := range ws.Items {
		size[w.Name] = strconv.FormatInt(int64(w.Spec.Size), 10)
	}
	n, ok := map[string]int{}, map[string]bool{}
	for _, k := range kids.Items {
		p := k.Labels[Label]
		n[p]++
		if k.Data["size"] == size[p] {
			ok[p] = true
		}
	}
	for _, c := range n {
		if c > 1 {
			dups++
		}
	}
	return dups, len(ok) == len(ws.Items), nil
}

var _ reconcile.Reconciler = (*Reconciler)(nil)

package controller

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	batchsyncers "github.com/syncer-gen/syncer-gen/examples/ctrl/syncers/batch/v1"
)

// jobOwnerKey indexes Jobs by the name of their controller owner.
const jobOwnerKey = "owner"

// WidgetReconciler runs a Job for each generation of a widget's spec while
// the widget has an owner and a size, deletes its other Jobs, and sets its
// status.phase: Pending without an owner or a size, Starting until its Job
// is seen, Ready once it is.
type WidgetReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// Reconcile brings a widget's Jobs and phase to what its spec asks.
func (r *WidgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	var w shopv1alpha1.Widget
	if err := r.Get(ctx, req.NamespacedName, &w); err != nil {
		if apierrors.IsNotFound(err) {
			log.Info("deleted")
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	var jobs batchv1.JobList
	if err := r.List(ctx, &jobs, client.InNamespace(req.Namespace), client.MatchingFields{jobOwnerKey: req.Name}); err != nil {
		return ctrl.Result{}, err
	}
	want := ""
	if w.Spec.Owner != "" && w.Spec.Size > 0 {
		want = fmt.Sprintf("%s-%d", w.Name, w.Generation)
	}
	found := false
	for i := range jobs.Items {
		if jobs.Items[i].Name == want {
			found = true
			continue
		}
		if err := r.Delete(ctx, &jobs.Items[i], client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
	}
	phase := "Pending"
	if want != "" && found {
		phase = "Ready"
	} else if want != "" {
		phase = "Starting"
		job, err := r.job(&w, want)
		if err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, job); client.IgnoreAlreadyExists(err) != nil {
			return ctrl.Result{}, err
		}
	}
	if w.Status.Phase == phase {
		return ctrl.Result{}, nil
	}
	w.Status.Phase = phase
	if err := r.Status().Update(ctx, &w); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, nil // what was read is behind: again, once it caught up
		}
		return ctrl.Result{}, err
	}
	log.Info("phase", "kind", w.GroupVersionKind().Kind, "phase", phase)
	return ctrl.Result{}, nil
}

// job returns the Job of the widget's spec, controlled by the widget.
func (r *WidgetReconciler) job(w *shopv1alpha1.Widget, name string) (*batchv1.Job, error) {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: name},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "build", Image: "busybox",
				Command: []string{"sh", "-c", fmt.Sprintf("echo building %d units for %s", w.Spec.Size, w.Spec.Owner)}}},
		}}},
	}
	return job, ctrl.SetControllerReference(w, job, r.Scheme)
}

// SetupWithManager watches widgets and the Jobs they own.
func (r *WidgetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		WatchesRawSource(ctrlsyncer.For(mgr, &r.Client, shopsyncers.WidgetSyncerIn)).
		WatchesRawSource(ctrlsyncer.Owns(mgr, &r.Client, batchsyncers.JobSyncerIn, &shopv1alpha1.Widget{})).
		Named("widget").
		Complete(r)
}

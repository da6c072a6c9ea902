package ctrlsyncer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	batchsyncers "github.com/syncer-gen/syncer-gen/examples/ctrl/syncers/batch/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// jobOwnerKey is the kubebuilder tutorial's field, which no marker can name.
const jobOwnerKey = ".metadata.controller"

// controllerWidget is the tutorial's IndexField function: the name of a
// Job's controller owner when that is a Widget.
func controllerWidget(o client.Object) []string {
	owner := metav1.GetControllerOf(o)
	if owner == nil || owner.APIVersion != shopv1alpha1.SchemeGroupVersion.String() || owner.Kind != "Widget" {
		return nil
	}
	return []string{owner.Name}
}

// jobsListed is a reconciler of widgets that lists each widget's Jobs by
// jobOwnerKey, as a kubebuilder reconciler does, and keeps what it listed.
type jobsListed struct {
	client.Client
	mu   sync.Mutex
	last map[string]string // widget -> its Jobs, as listed by its last reconcile
}

func (r *jobsListed) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var jobs batchv1.JobList
	if err := r.List(ctx, &jobs, client.InNamespace(req.Namespace), client.MatchingFields{jobOwnerKey: req.Name}); err != nil {
		return reconcile.Result{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last[req.Name] = jobNames(jobs.Items)
	return reconcile.Result{}, nil
}

func (r *jobsListed) listed(widget string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last[widget]
}

func jobNames(jobs []batchv1.Job) string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.Name)
	}
	return fmt.Sprint(out)
}

// jobRequests counts the requests of Jobs made through an HTTP client.
type jobRequests struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *jobRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasPrefix(r.URL.Path, "/apis/batch/") && strings.Contains(r.URL.Path, "/jobs") {
		c.n.Add(1)
	}
	return c.next.RoundTrip(r)
}

// countingCache makes the Manager's cache talk to the server through a
// client that counts its requests of Jobs (the Manager's client and the
// syncers have their own).
func countingCache(t *testing.T, cfg *rest.Config) (*jobRequests, func(*ctrl.Options)) {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	counted := &jobRequests{next: hc.Transport}
	hc.Transport = counted
	return counted, func(o *ctrl.Options) { o.Cache.HTTPClient = hc }
}

// A kubebuilder IndexField switched in one line (mgr.GetFieldIndexer() ->
// ctrlsyncer.FieldIndexer(mgr)), on the real server: the Jobs' syncer made
// by Owns keeps the index under the cache's field name, and a reconciler's
// List with MatchingFields{".metadata.controller": widget} gets that
// widget's Jobs, and follows a Job whose controller owner changes; the
// Manager's cache starts no informer of Jobs (it has none to read from,
// and sent no request of Jobs), where the Manager's own IndexField made it
// watch them.
func TestFieldIndexerServesAnIndexFieldMoved(t *testing.T) {
	srv, direct, ns := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	widgets := map[string]*shopv1alpha1.Widget{}
	for _, name := range []string{"a", "b"} {
		w := &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		if err := direct.Create(ctx, w); err != nil {
			t.Fatal(err)
		}
		widgets[name] = w
	}
	yes, no := true, false
	ref := func(name string, controller *bool) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: shopv1alpha1.SchemeGroupVersion.String(), Kind: "Widget", Name: name, UID: widgets[name].UID, Controller: controller}
	}
	for _, j := range []*batchv1.Job{
		job(ns, "a-1", ref("a", &yes)),
		job(ns, "a-2", ref("a", &yes)),
		job(ns, "b-1", ref("b", &yes)),
		job(ns, "owned-not-controlled", ref("a", &no)),
		job(ns, "controlled-by-a-configmap", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "a", UID: "uid-cm", Controller: &yes}),
	} {
		if err := direct.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
	}

	counted, withCounting := countingCache(t, srv.Config())
	mgr := newManager(t, srv.Config(), logr.Discard(), withCounting)
	c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)))
	if err != nil {
		t.Fatal(err)
	}
	// SetupWithManager, the IndexField statement kept but for its receiver.
	rec := &jobsListed{Client: c, last: map[string]string{}}
	if err := ctrlsyncer.FieldIndexer(mgr).IndexField(ctx, &batchv1.Job{}, jobOwnerKey, controllerWidget); err != nil {
		t.Fatal(err)
	}
	err = ctrl.NewControllerManagedBy(mgr).Named("indexer").
		WatchesRawSource(ctrlsyncer.For(mgr, field(rec.Client), shopsyncers.WidgetSyncerIn)).
		WatchesRawSource(ctrlsyncer.Owns(mgr, field(rec.Client), batchsyncers.JobSyncerIn, &shopv1alpha1.Widget{})).
		Complete(rec)
	if err != nil {
		t.Fatal(err)
	}
	start(t, mgr)

	matching := func(fields client.MatchingFields) string {
		var l batchv1.JobList
		if err := c.List(ctx, &l, client.InNamespace(ns), fields); err != nil {
			return err.Error() // not started yet, the first time round
		}
		return jobNames(l.Items)
	}
	wantJobs := func(want map[string]string) {
		t.Helper()
		eventually(t, time.Minute, func() string {
			for widget, jobs := range want {
				if got := matching(client.MatchingFields{jobOwnerKey: widget}); got != jobs {
					return fmt.Sprintf("List of the Jobs of %s: %s; want %s", widget, got, jobs)
				}
				if got := rec.listed(widget); got != jobs {
					return fmt.Sprintf("the reconcile of %s listed %s; want %s", widget, got, jobs)
				}
			}
			return ""
		})
	}
	wantJobs(map[string]string{"a": "[a-1 a-2]", "b": "[b-1]"})
	if got := matching(client.MatchingFields{jobOwnerKey: "b", "owner": "b"}); got != "[b-1]" { // with the marker's index
		t.Errorf("List of the Jobs of b by both indexes: %s; want [b-1]", got)
	}

	// a-2 changes hands: both widgets are reconciled, and list it where it is.
	var moved batchv1.Job
	if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a-2"}, &moved); err != nil {
		t.Fatal(err)
	}
	moved.OwnerReferences = []metav1.OwnerReference{ref("b", &yes)}
	if err := direct.Update(ctx, &moved); err != nil {
		t.Fatal(err)
	}
	wantJobs(map[string]string{"a": "[a-1]", "b": "[a-2 b-1]"})

	var notCached *cache.ErrResourceNotCached
	if err := mgr.GetCache().List(ctx, &batchv1.JobList{}); !errors.As(err, &notCached) {
		t.Errorf("the Manager's cache answers a List of Jobs (%v): it has an informer of Jobs", err)
	}
	if n := counted.n.Load(); n != 0 {
		t.Errorf("the Manager's cache sent %d requests of Jobs", n)
	}

	// The same statement on the Manager's FieldIndexer: its cache watches
	// Jobs, which the two checks above see.
	counted, withCounting = countingCache(t, srv.Config())
	cached := newManager(t, srv.Config(), logr.Discard(), withCounting)
	if err := cached.GetFieldIndexer().IndexField(ctx, &batchv1.Job{}, jobOwnerKey, controllerWidget); err != nil {
		t.Fatal(err)
	}
	start(t, cached)
	eventually(t, time.Minute, func() string {
		if err := cached.GetCache().List(ctx, &batchv1.JobList{}); err != nil || counted.n.Load() == 0 {
			return fmt.Sprintf("with the Manager's IndexField, its cache's List of Jobs: %v, after %d requests of Jobs; want it served", err, counted.n.Load())
		}
		return ""
	})
}

// IndexField refuses, with an error that says what to do, what it cannot
// keep: a client that is not a Client, a field indexed twice for a type
// (the Manager's cache calls it an indexer conflict too), an index of a
// type whose syncer was made already, a nil object or function; a Manager
// whose Client has indexes no syncer took stops at once, naming them.
// The indexes count among the syncer's options: Add returns the syncer
// made with them, XSyncerIn(c.Set()) without them makes another.
func TestFieldIndexerRefusesWhatItCannotKeep(t *testing.T) {
	srv, _, _ := server(t)
	ctx := context.Background()
	mgr := newManager(t, srv.Config(), logr.Discard())
	c, err := ctrlsyncer.NewClient(mgr)
	if err != nil {
		t.Fatal(err)
	}
	wantErr := func(what string, err error, says string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v; want an error that says %q", what, err, says)
		}
	}

	ix := ctrlsyncer.FieldIndexer(mgr)
	if err := ix.IndexField(ctx, &batchv1.Job{}, jobOwnerKey, controllerWidget); err != nil {
		t.Fatal(err)
	}
	wantErr("the same field twice", ix.IndexField(ctx, &batchv1.Job{}, jobOwnerKey, controllerWidget), "indexer conflict")
	if err := mgr.GetFieldIndexer().IndexField(ctx, &batchv1.Job{}, jobOwnerKey, controllerWidget); err != nil {
		t.Fatal(err)
	}
	wantErr("the same field twice in the Manager's cache", mgr.GetFieldIndexer().IndexField(ctx, &batchv1.Job{}, jobOwnerKey, controllerWidget), "indexer conflict")
	if err := ix.IndexField(ctx, &batchv1.Job{}, "image", jobImages); err != nil {
		t.Errorf("another field of Jobs: %v", err)
	}
	if err := ix.IndexField(ctx, &corev1.ConfigMap{}, jobOwnerKey, controllerWidget); err != nil {
		t.Errorf("the same field of another type: %v", err)
	}
	wantErr("a nil object", ix.IndexField(ctx, nil, "x", controllerWidget), "want a pointer to an object")
	wantErr("a nil function", ix.IndexField(ctx, &batchv1.Job{}, "x", nil), "the function that computes the index is nil")

	s, err := ctrlsyncer.Add(mgr, field(c), batchsyncers.JobSyncerIn)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{jobOwnerKey, "image", "owner"} {
		if !s.Store().HasIndex(name) {
			t.Errorf("the syncer of Jobs has no index %q", name)
		}
	}
	if s.Store().HasIndex("x") {
		t.Error("the syncer of Jobs has the index of a refused IndexField")
	}
	wantErr("IndexField after Add", ix.IndexField(ctx, &batchv1.Job{}, "late", jobImages), "call IndexField before For/Owns/Add")
	if s.Store().HasIndex("late") {
		t.Error("the syncer of Jobs has the index of an IndexField that came after it")
	}

	if again, err := ctrlsyncer.Add(mgr, field(c), batchsyncers.JobSyncerIn); err != nil || again != s {
		t.Errorf("Add again: %p, %v; want the syncer made with the indexes, %p", again, err, s)
	}
	if other, err := batchsyncers.JobSyncerIn(c.Set()); err != nil || other.Syncer == s {
		t.Errorf("JobSyncerIn(c.Set()) without the indexes: %v; want another syncer (their names are among its options)", err)
	}
	if same, err := batchsyncers.JobSyncerIn(c.Set(), runtime.WithIndex(jobOwnerKey, controllerWidget), runtime.WithIndex("image", jobImages)); err != nil || same.Syncer != s {
		t.Errorf("JobSyncerIn(c.Set()) with indexes of the same names: %v; want the same syncer", err)
	}

	// The ConfigMaps' index is kept by no syncer: the Manager stops.
	err = stops(t, mgr)
	wantErr("starting with an index no syncer keeps", err, "IndexField declared indexes of *v1.ConfigMap (.metadata.controller)")
}

// jobImages indexes Jobs by their containers' images.
func jobImages(o client.Object) []string {
	var out []string
	for _, c := range o.(*batchv1.Job).Spec.Template.Spec.Containers {
		out = append(out, c.Image)
	}
	return slices.Compact(out)
}

// job returns a Job of ns with owners.
func job(ns, name string, owners ...metav1.OwnerReference) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, OwnerReferences: owners},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
		}}}}
}

// An IndexField under the name of one of the syncer's marker indexes
// (examples/ctrl's Job alias has "owner") would replace it unseen, and
// ByOwner would then answer with the other function's values: the syncer
// is not made, and the error names the index.
func TestFieldIndexerNamedAsAMarkerIndexIsRefused(t *testing.T) {
	srv, _, _ := server(t)
	mgr := newManager(t, srv.Config(), logr.Discard())
	c, err := ctrlsyncer.NewClient(mgr)
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrlsyncer.FieldIndexer(mgr).IndexField(context.Background(), &batchv1.Job{}, "owner", jobImages); err != nil {
		t.Fatal(err)
	}
	if _, err := ctrlsyncer.Add(mgr, field(c), batchsyncers.JobSyncerIn); err == nil || !strings.Contains(err.Error(), `WithIndex("owner") given twice`) {
		t.Errorf("Add with an IndexField named as a marker index: %v; want the name given twice", err)
	}
}

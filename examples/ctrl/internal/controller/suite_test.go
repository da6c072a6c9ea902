package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/crd/config/crd"
	"github.com/syncer-gen/syncer-gen/examples/ctrl/internal/controller"
	twin "github.com/syncer-gen/syncer-gen/examples/ctrl/internal/twin/controller"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard()) // the clients made outside a Manager log nowhere, and say nothing of it
	testbed.Main(m)
}

// The controller's own suite, in the style of a kubebuilder envtest suite
// (a real kube-apiserver, a Manager running the controller, a client
// straight to the server to act and look), run twice: on the Manager's
// cache (the plain twin) and on syncers. Each run must pass the suite, and
// the two must end the same: the same phases written in the same order,
// with the same kind read, the same deletions seen, the same Jobs left.
func TestSuiteOnTheCacheAndOnSyncers(t *testing.T) {
	srv := testbed.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := crd.Install(ctx, srv.Config(), time.Minute); err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]outcome{}
	for _, run := range []struct {
		name  string
		setup func(mgr ctrl.Manager, cacheOpts cache.Options) error
	}{
		{"cache", func(mgr ctrl.Manager, _ cache.Options) error {
			return (&twin.WidgetReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr)
		}},
		{"syncers", func(mgr ctrl.Manager, cacheOpts cache.Options) error {
			// The one line a Manager whose cache watches some namespaces
			// adds beside ctrl.NewManager; the reconciler is made as above.
			if _, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithCacheOptions(cacheOpts)); err != nil {
				return err
			}
			return (&controller.WidgetReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr)
		}},
	} {
		t.Run(run.name, func(t *testing.T) {
			s := startSuite(t, srv, run.setup)
			s.specs(t)
			outcomes[run.name] = s.outcome(t)
		})
	}
	if t.Failed() {
		return
	}
	if !reflect.DeepEqual(outcomes["cache"], outcomes["syncers"]) {
		t.Errorf("the runs ended differently:\non the cache:   %+v\non syncers:     %+v", outcomes["cache"], outcomes["syncers"])
	}
}

// suite is one run: a namespace, a Manager with the controller, the
// controller's log lines, and a client straight to the server.
type suite struct {
	ns     string
	direct client.Client
	ctx    context.Context

	mu  sync.Mutex
	log []logLine
}

// logLine is what the reconciler logged: a phase it wrote, or a deletion.
type logLine struct {
	Msg   string `json:"msg"`
	Name  string `json:"name"`
	Phase string `json:"phase"`
	Kind  string `json:"kind"`
}

func scheme(t *testing.T) *kruntime.Scheme {
	t.Helper()
	s := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := shopv1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// startSuite makes a namespace (testbed's Namespace) and starts a Manager
// that watches it, with the controller setup puts on it, until the test
// ends.
func startSuite(t *testing.T, srv *testbed.Server, setup func(ctrl.Manager, cache.Options) error) *suite {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	direct, err := client.New(srv.Config(), client.Options{Scheme: scheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	ns := srv.Namespace(t)
	s := &suite{ns: ns, direct: direct, ctx: ctx}
	logger := funcr.NewJSON(func(obj string) {
		var l logLine
		if json.Unmarshal([]byte(obj), &l) == nil && (l.Msg == "phase" || l.Msg == "deleted") {
			s.mu.Lock()
			s.log = append(s.log, l)
			s.mu.Unlock()
		}
	}, funcr.Options{})
	skip := true
	cacheOpts := cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}}
	mgr, err := ctrl.NewManager(srv.Config(), ctrl.Options{Scheme: scheme(t), Logger: logger,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:      cacheOpts,
		Controller: config.Controller{SkipNameValidation: &skip}, // both runs name their controller "widget"
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := setup(mgr, cacheOpts); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return s
}

// specs are the suite's cases, in order, each waiting for what the
// controller must do.
func (s *suite) specs(t *testing.T) {
	s.create(t, "w1", "alice", 2)
	s.create(t, "w2", "", 1)
	s.create(t, "w3", "bob", 0)
	// A widget with an owner and a size gets a Job of its generation, which
	// it controls, and is Ready; the others are Pending, with no Job.
	s.expect(t, "the first reconciles", map[string]string{"w1": "Ready", "w2": "Pending", "w3": "Pending"}, map[string]string{"w1-1": "w1"})

	// A Job deleted by hand is made again (Owns enqueues its owner, which
	// finds it gone through the owner index).
	if err := s.direct.Delete(s.ctx, s.job("w1-1"), client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, "w1's Job made again", func() string {
		if s.transitions()["w1"] != "Starting Ready Starting Ready" {
			return "w1's phases: " + s.transitions()["w1"]
		}
		return ""
	})

	// A Job that names w1 as an owner but not as its controller is not
	// w1's: the owner index leaves it out, and w1 never deletes it.
	no := false
	foreign := s.job("foreign")
	w1 := s.widget(t, "w1")
	foreign.OwnerReferences = []metav1.OwnerReference{{APIVersion: shopv1alpha1.SchemeGroupVersion.String(), Kind: "Widget",
		Name: "w1", UID: w1.UID, Controller: &no}}
	foreign.Spec = batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "x", Image: "busybox"}}}}}
	if err := s.direct.Create(s.ctx, foreign); err != nil {
		t.Fatal(err)
	}

	// A new spec replaces the Job: the old one is deleted, one of the new
	// generation made.
	s.update(t, "w1", func(w *shopv1alpha1.Widget) { w.Spec.Size = 3 })
	// A widget given an owner gets its Job.
	s.update(t, "w2", func(w *shopv1alpha1.Widget) { w.Spec.Owner = "carol" })
	s.expect(t, "the spec changes", map[string]string{"w1": "Ready", "w2": "Ready", "w3": "Pending"},
		map[string]string{"w1-2": "w1", "w2-2": "w2", "foreign": ""})

	// A deleted widget is seen gone.
	if err := s.direct.Delete(s.ctx, s.widget(t, "w3")); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, "w3's deletion", func() string {
		if got := s.deleted(); !slices.Equal(got, []string{"w3"}) {
			return fmt.Sprintf("deletions seen: %v", got)
		}
		return ""
	})
}

// outcome is how a run ended: the phases each widget was given, in order,
// with the kind the reconciler read; the deletions it saw; the Jobs left
// and their controller owners.
type outcome struct {
	Phases  map[string]string
	Kinds   []string
	Deleted []string
	Jobs    map[string]string
}

func (s *suite) outcome(t *testing.T) outcome {
	t.Helper()
	o := outcome{Phases: s.transitions(), Deleted: s.deleted(), Jobs: s.jobs(t)}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.log {
		if l.Msg == "phase" && !slices.Contains(o.Kinds, l.Kind) {
			o.Kinds = append(o.Kinds, l.Kind)
		}
	}
	want := map[string]string{"w1": "Starting Ready Starting Ready Starting Ready", "w2": "Pending Starting Ready", "w3": "Pending"}
	if !reflect.DeepEqual(o.Phases, want) {
		t.Errorf("phases written: %v; want %v", o.Phases, want)
	}
	if !slices.Equal(o.Kinds, []string{"Widget"}) {
		t.Errorf("kinds of the widgets read: %q; want the GroupVersionKind's, Widget", o.Kinds)
	}
	return o
}

func (s *suite) create(t *testing.T, name, owner string, size int32) {
	t.Helper()
	if err := s.direct.Create(s.ctx, &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name},
		Spec: shopv1alpha1.WidgetSpec{Owner: owner, Size: size}}); err != nil {
		t.Fatal(err)
	}
}

func (s *suite) widget(t *testing.T, name string) *shopv1alpha1.Widget {
	t.Helper()
	var w shopv1alpha1.Widget
	if err := s.direct.Get(s.ctx, types.NamespacedName{Namespace: s.ns, Name: name}, &w); err != nil {
		t.Fatal(err)
	}
	return &w
}

// update changes a widget's spec, retrying on conflicts with the
// controller's status writes.
func (s *suite) update(t *testing.T, name string, change func(*shopv1alpha1.Widget)) {
	t.Helper()
	s.waitFor(t, "an update of "+name, func() string {
		w := s.widget(t, name)
		change(w)
		if err := s.direct.Update(s.ctx, w); err != nil {
			if apierrors.IsConflict(err) {
				return err.Error()
			}
			t.Fatal(err)
		}
		return ""
	})
}

func (s *suite) job(name string) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name}}
}

// jobs returns the Jobs of the namespace and their controllers' names.
func (s *suite) jobs(t *testing.T) map[string]string {
	t.Helper()
	var l batchv1.JobList
	if err := s.direct.List(s.ctx, &l, client.InNamespace(s.ns)); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, j := range l.Items {
		out[j.Name] = ""
		if c := metav1.GetControllerOf(&j); c != nil {
			out[j.Name] = c.Name
		}
	}
	return out
}

// expect waits until the widgets have the phases and the namespace has
// exactly the Jobs given (name: controller owner).
func (s *suite) expect(t *testing.T, what string, phases, jobs map[string]string) {
	t.Helper()
	s.waitFor(t, what, func() string {
		for name, phase := range phases {
			if w := s.widget(t, name); w.Status.Phase != phase {
				return fmt.Sprintf("%s's phase is %q, want %q", name, w.Status.Phase, phase)
			}
		}
		if got := s.jobs(t); !reflect.DeepEqual(got, jobs) {
			return fmt.Sprintf("jobs %v, want %v", got, jobs)
		}
		return ""
	})
}

// transitions returns the phases logged per widget, space-separated.
func (s *suite) transitions() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for _, l := range s.log {
		if l.Msg == "phase" {
			out[l.Name] = strings.TrimSpace(out[l.Name] + " " + l.Phase)
		}
	}
	return out
}

func (s *suite) deleted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.log {
		if l.Msg == "deleted" {
			out = append(out, l.Name)
		}
	}
	return out
}

// waitFor polls f until it returns "" or a minute passes.
func (s *suite) waitFor(t *testing.T, what string, f func() string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for msg := f(); msg != ""; msg = f() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s", what, msg)
		}
		time.Sleep(50 * time.Millisecond) // polling interval
	}
}

package ctrlsyncer_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/crd/config/crd"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

// server returns the package's test server with the widgets CRD
// installed, a client straight to it, and a namespace of this run's own
// (testbed's Namespace).
func server(t *testing.T) (*testbed.Server, client.Client, string) {
	t.Helper()
	srv := testbed.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := crd.Install(ctx, srv.Config(), time.Minute); err != nil {
		t.Fatal(err)
	}
	direct, err := client.New(srv.Config(), client.Options{Scheme: scheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	return srv, direct, srv.Namespace(t)
}

// scheme knows widgets and the built-in types.
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

// newManager returns a Manager of cfg whose scheme knows widgets and the
// built-in types, with no metrics or probe server, logging to log. Its
// controllers may take names used before in the process: controller-runtime
// refuses a name twice per process, and a test run again (-count) names
// its controller again.
func newManager(t *testing.T, cfg *rest.Config, log logr.Logger, opts ...func(*ctrl.Options)) manager.Manager {
	t.Helper()
	skip := true
	o := ctrl.Options{Scheme: scheme(t), Logger: log, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:      cache.Options{ReaderFailOnMissingInformer: true}, // a read that reaches the Manager's cache for a type it does not watch fails
		Controller: config.Controller{SkipNameValidation: &skip}}
	for _, f := range opts {
		f(&o)
	}
	mgr, err := ctrl.NewManager(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}

// start runs mgr until the test ends. The channel it returns is closed
// when mgr.Start returned, with its error in *err.
func start(t *testing.T, mgr manager.Manager) (stopped <-chan struct{}, err *error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var startErr error
	go func() { defer close(done); startErr = mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return done, &startErr
}

// stops starts mgr and returns the error it stops with, which it must
// within a minute.
func stops(t *testing.T, mgr manager.Manager) error {
	t.Helper()
	stopped, err := start(t, mgr)
	select {
	case <-stopped:
		return *err
	case <-time.After(time.Minute):
		t.Fatal("the Manager did not stop")
		return nil
	}
}

// logs is a logger that keeps its lines.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		fmt.Fprintln(&l.buf, prefix, args)
	}, funcr.Options{})
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// eventually polls f until it returns "" or d passes.
func eventually(t *testing.T, d time.Duration, f func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for msg := f(); msg != ""; msg = f() {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(20 * time.Millisecond) // polling interval
	}
}

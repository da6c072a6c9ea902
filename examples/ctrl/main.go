package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr/funcr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ctrl:", err)
		os.Exit(1)
	}
}

type options struct {
	kubeconfig, namespace, id, leaseNamespace string
	leaseDuration                             time.Duration
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("ctrl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&o.namespace, "namespace", "", "namespace of the widgets (default: all)")
	fs.StringVar(&o.id, "id", "", "this replica's leader election identity (default: host name and process ID)")
	fs.StringVar(&o.leaseNamespace, "lease-namespace", "default", "namespace of the leader election Lease")
	fs.DurationVar(&o.leaseDuration, "lease-duration", 15*time.Second, "leader election lease duration (renew deadline 2/3 of it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.id == "" {
		host, _ := os.Hostname()
		o.id = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return err
	}
	scheme := kruntime.NewScheme()
	if err := shopv1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	renew, retry := o.leaseDuration*2/3, o.leaseDuration/5
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Logger: funcr.New(func(prefix, args string) { fmt.Fprintln(stderr, prefix, args) }, funcr.Options{}),
		LeaderElection: true, LeaderElectionID: "widgets-ctrl-example", LeaderElectionNamespace: o.leaseNamespace,
		LeaseDuration: &o.leaseDuration, RenewDeadline: &renew, RetryPeriod: &retry,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		return err
	}

	// The generated syncer, run before leader election; its store read
	// through a client.Reader; its events the controller's source.
	widgets, err := shopsyncers.NewWidgetSyncer(cfg, runtime.WithNamespace(o.namespace))
	if err != nil {
		return err
	}
	if err := mgr.Add(ctrlsyncer.Runnable(widgets)); err != nil {
		return err
	}
	reader := ctrlsyncer.NewReader()
	ctrlsyncer.Register(reader, widgets.Syncer)
	r := &reconciler{read: reader, write: mgr.GetClient(), out: stdout}
	err = ctrl.NewControllerManagedBy(mgr).Named("widget").
		WatchesRawSource(ctrlsyncer.Source(widgets.Syncer, &handler.TypedEnqueueRequestForObject[*shopv1alpha1.Widget]{})).
		Complete(r)
	if err != nil {
		return err
	}

	go func() {
		if widgets.WaitForSync(ctx) == nil {
			fmt.Fprintf(stdout, "replica %s synced %d widgets, mode=%s\n", o.id, widgets.Store().Len(), widgets.Mode())
		}
	}()
	go func() {
		select {
		case <-mgr.Elected():
			fmt.Fprintf(stdout, "replica %s leads, with %d widgets in its store\n", o.id, widgets.Store().Len())
		case <-ctx.Done():
		}
	}()
	return mgr.Start(ctx)
}

// reconciler sets a widget's status.phase from its spec, reading from the
// syncer and writing through the Manager's client.
type reconciler struct {
	read  client.Reader
	write client.Client
	out   io.Writer
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var w shopv1alpha1.Widget
	if err := r.read.Get(ctx, req.NamespacedName, &w); err != nil {
		if apierrors.IsNotFound(err) {
			fmt.Fprintf(r.out, "%s: deleted\n", req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	phase := "Pending"
	if w.Spec.Owner != "" && w.Spec.Size > 0 {
		phase = "Ready"
	}
	if w.Status.Phase == phase {
		return reconcile.Result{}, nil
	}
	w.Status.Phase = phase // w is the Reader's deep copy
	if err := r.write.Status().Update(ctx, &w); err != nil {
		if apierrors.IsConflict(err) {
			return reconcile.Result{RequeueAfter: 100 * time.Millisecond}, nil // the syncer is behind: try again once it caught up
		}
		return reconcile.Result{}, err
	}
	fmt.Fprintf(r.out, "%s: %s\n", req.NamespacedName, phase)
	return reconcile.Result{}, nil
}

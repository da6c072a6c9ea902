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
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/ctrl/internal/controller"
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
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := shopv1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	var cacheOpts cache.Options
	if o.namespace != "" {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{o.namespace: {}}
	}
	renew, retry := o.leaseDuration*2/3, o.leaseDuration/5
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Logger: funcr.New(func(prefix, args string) { fmt.Fprintln(stdout, prefix, args) }, funcr.Options{}),
		LeaderElection: true, LeaderElectionID: "widgets-ctrl-example", LeaderElectionNamespace: o.leaseNamespace,
		LeaseDuration: &o.leaseDuration, RenewDeadline: &renew, RetryPeriod: &retry,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0", Cache: cacheOpts,
	})
	if err != nil {
		return err
	}

	// The syncers watch what the cache would have watched: a Manager whose
	// cache is limited to some namespaces gives them its cache options.
	// The reconciler's SetupWithManager adds them (For, Owns) and makes its
	// client read widgets and Jobs from them; they run before leader
	// election. Everything else goes to the Manager's client.
	syncers, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithCacheOptions(cacheOpts))
	if err != nil {
		return err
	}
	if err := (&controller.WidgetReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr); err != nil {
		return err
	}
	widgets, err := shopsyncers.WidgetSyncerIn(syncers.Set()) // the controller's: the same options give the same syncer
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

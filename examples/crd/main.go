package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/crd/config/crd"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2) // the flag package has said what is wrong
		}
		fmt.Fprintln(os.Stderr, "crd:", err)
		os.Exit(1)
	}
}

// run is the whole program, with its arguments and outputs passed in so
// that tests run it in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(o.qps), max(10, int(2*o.qps))
	if o.installCRD {
		if err := crd.Install(ctx, cfg, time.Minute); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "CRD widgets.shop.example.com applied and established")
	}
	if o.reconcile && o.shards > 0 {
		return runSharded(ctx, cfg, o, stdout, stderr)
	}
	if o.reconcile {
		return runController(ctx, cfg, o, stdout, stderr)
	}
	// The generated syncers: their stores already have the owner and color
	// indexes the markers declare (on Widget, and on views.WidgetView).
	opts := []runtime.Option{runtime.WithNamespace(o.namespace)}
	if o.view {
		views, err := shopsyncers.NewWidgetViewSyncer(cfg, opts...)
		if err != nil {
			return err
		}
		return follow(ctx, views.Syncer, views.Store(), readView, o, stdout, stderr)
	}
	widgets, err := shopsyncers.NewWidgetSyncer(cfg, opts...)
	if err != nil {
		return err
	}
	return follow(ctx, widgets.Syncer, widgets.Store(), readWidget, o, stdout, stderr)
}

// loadConfig reads the kubeconfig at path, or the default one ($KUBECONFIG,
// ~/.kube/config) when path is empty.
func loadConfig(path string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	return cfg, nil
}

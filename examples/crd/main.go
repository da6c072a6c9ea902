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
	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
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
	// The generated syncer: its store already has the owner and color
	// indexes the markers on Widget declare.
	widgets, err := shopsyncers.NewWidgetSyncer(cfg, runtime.WithNamespace(o.namespace))
	if err != nil {
		return err
	}
	p := &printer{
		out:      stdout,
		bar:      progress.New(stderr, "syncing widgets", -1),
		store:    widgets.Store(),
		mode:     widgets.Mode,
		progress: widgets.Progress,
		live:     !o.once,
		started:  time.Now(),
	}
	widgets.AddHandler(shopsyncers.WidgetHandlerFuncs{
		AddFunc:    p.added,
		UpdateFunc: p.updated,
		DeleteFunc: p.deleted,
		SyncFunc:   p.synced,
		ErrorFunc:  p.failed,
	})

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- widgets.Run(ctx) }()
	go progress.Follow(ctx, p.bar, widgets.Progress, 100*time.Millisecond)
	if err := widgets.WaitForSync(ctx); err != nil {
		cancel()
		<-done
		return fmt.Errorf("widgets not synced: %w%s", err, p.lastError())
	}
	if !o.once {
		<-ctx.Done() // live events are printed by the handler until then
	}
	cancel()
	return <-done
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

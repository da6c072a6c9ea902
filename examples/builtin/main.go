package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

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
		fmt.Fprintln(os.Stderr, "builtin:", err)
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
	follow, ok := resources[o.resource]
	if !ok {
		return fmt.Errorf("unknown --resource %q: want one of %s", o.resource, resourceNames())
	}
	cfg, err := loadConfig(o.kubeconfig)
	if err != nil {
		return err
	}
	return follow(ctx, cfg, o, stdout, stderr)
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

package main

import (
	"flag"
	"io"
	"time"
)

// options are the command-line flags.
type options struct {
	kubeconfig string
	namespace  string
	installCRD bool
	once       bool
	// The controller (--reconcile).
	reconcile   bool
	metricsAddr string
	syncTimeout time.Duration
	qps         float64
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("crd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&o.namespace, "namespace", "", "namespace to sync (default: all)")
	fs.BoolVar(&o.installCRD, "install-crd", false, "apply the widgets CRD and wait until it is established first")
	fs.BoolVar(&o.once, "once", false, "exit after the initial sync")
	fs.BoolVar(&o.reconcile, "reconcile", false, "run as a controller: set each widget's status.phase from its spec")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "with --reconcile: serve Prometheus metrics at this address's /metrics (e.g. 127.0.0.1:8080)")
	fs.DurationVar(&o.syncTimeout, "sync-timeout", time.Minute, "with --reconcile: how long to wait for the initial sync")
	fs.Float64Var(&o.qps, "qps", -1, "requests per second the client may send, bursts of twice as many; -1: no client-side limit, the server's API Priority and Fairness governs (as controller-runtime does)")
	if err := fs.Parse(args); err != nil {
		return o, usageError{err}
	}
	return o, nil
}

// usageError is a flag that could not be parsed; the flag package has
// printed the error and the usage already.
type usageError struct{ error }

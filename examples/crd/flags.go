package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

// options are the command-line flags.
type options struct {
	kubeconfig string
	namespace  string
	installCRD bool
	once       bool
	view       bool
	// The controller (--reconcile).
	reconcile   bool
	metricsAddr string
	syncTimeout time.Duration
	qps         float64
	// A sharded controller (--reconcile --shards N): one replica of a fleet.
	shards         int
	replica        string
	leaseNamespace string
	leaseDuration  time.Duration
	snapshotDir    string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("crd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&o.namespace, "namespace", "", "namespace to sync (default: all)")
	fs.BoolVar(&o.installCRD, "install-crd", false, "apply the widgets CRD and wait until it is established first")
	fs.BoolVar(&o.once, "once", false, "exit after the initial sync")
	fs.BoolVar(&o.view, "view", false, "sync WidgetViews, the projection of widgets to owner, color, size and phase (views.WidgetView), rather than whole widgets; it prints the same")
	fs.BoolVar(&o.reconcile, "reconcile", false, "run as a controller: set each widget's status.phase from its spec")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "with --reconcile: serve Prometheus metrics at this address's /metrics (e.g. 127.0.0.1:8080)")
	fs.DurationVar(&o.syncTimeout, "sync-timeout", time.Minute, "with --reconcile: how long to wait for the initial sync")
	fs.Float64Var(&o.qps, "qps", -1, "requests per second the client may send, bursts of twice as many; -1: no client-side limit, the server's API Priority and Fairness governs (as controller-runtime does)")
	fs.IntVar(&o.shards, "shards", 0, "with --reconcile: split the widgets into this many shards, shared with the other replicas started with the same number; 0: one controller for every widget")
	fs.StringVar(&o.replica, "replica", "", "with --shards: this replica's name, unique among the live replicas (default: host name and process ID)")
	fs.StringVar(&o.leaseNamespace, "lease-namespace", "default", "with --shards: the namespace of the fleet's Leases")
	fs.DurationVar(&o.leaseDuration, "lease-duration", 15*time.Second, "with --shards: how long a replica's shards stay its own after it stops renewing them (a killed replica's are taken over after this)")
	fs.StringVar(&o.snapshotDir, "snapshot-dir", "", "with --shards: keep each shard's snapshot in this folder, so that a shard this replica takes again (after a restart under the same --replica) starts warm")
	if err := fs.Parse(args); err != nil {
		return o, usageError{err}
	}
	switch {
	case o.view && o.reconcile:
		return o, errors.New("--view follows widgets; the controller (--reconcile) writes whole ones")
	case o.shards < 0:
		return o, fmt.Errorf("--shards %d: want 0 (no sharding) or more", o.shards)
	case o.shards > 0 && !o.reconcile:
		return o, errors.New("--shards needs --reconcile")
	case o.shards > 0 && o.leaseDuration < 2*time.Second:
		return o, fmt.Errorf("--lease-duration %s: want 2s or more", o.leaseDuration)
	case o.snapshotDir != "" && o.shards == 0:
		return o, errors.New("--snapshot-dir needs --shards")
	}
	if o.shards > 0 && o.replica == "" {
		host, _ := os.Hostname()
		o.replica = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	return o, nil
}

// usageError is a flag that could not be parsed; the flag package has
// printed the error and the usage already.
type usageError struct{ error }

package main

import (
	"flag"
	"io"
)

// options are the command-line flags.
type options struct {
	kubeconfig string
	namespace  string
	resource   string
	once       bool
	snapshot   string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("builtin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&o.namespace, "namespace", "", "namespace to sync (default: all; ignored for nodes)")
	fs.StringVar(&o.resource, "resource", "pods", "resource to sync: "+resourceNames())
	fs.BoolVar(&o.once, "once", false, "exit after the initial sync")
	fs.StringVar(&o.snapshot, "snapshot", "", "file to keep the synced objects in between runs: the next run starts warm from it")
	if err := fs.Parse(args); err != nil {
		return o, usageError{err}
	}
	return o, nil
}

// usageError is a flag that could not be parsed; the flag package has
// printed the error and the usage already.
type usageError struct{ error }

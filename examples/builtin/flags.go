package main

import (
	"flag"
	"fmt"
	"io"
)

// options are the command-line flags.
type options struct {
	kubeconfig string
	namespace  string
	resource   string
	once       bool
	snapshot   string
	node       string
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
	fs.StringVar(&o.node, "node", "", "with --resource pods or nodepods: sync only the pods of this node (field selector spec.nodeName=NODE), as a node agent does")
	if err := fs.Parse(args); err != nil {
		return o, usageError{err}
	}
	if o.node != "" && o.resource != "pods" && o.resource != "nodepods" {
		return o, fmt.Errorf("--node needs --resource pods or nodepods, not %q", o.resource)
	}
	return o, nil
}

// usageError is a flag that could not be parsed; the flag package has
// printed the error and the usage already.
type usageError struct{ error }

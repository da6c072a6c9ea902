package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// options are the command-line flags.
type options struct {
	configMaps int
	widgets    int
	pods       int
	nodes      int
	workers    int
	namespace  string
}

func main() {
	var o options
	flag.IntVar(&o.configMaps, "configmaps", 3000, "ConfigMaps to create")
	flag.IntVar(&o.widgets, "widgets", 2000, "Widgets to create")
	flag.IntVar(&o.pods, "pods", 2000, "Deployment-shaped Pods to create for the projection step")
	flag.IntVar(&o.nodes, "nodes", 8, "node names the pods are spread over")
	flag.IntVar(&o.workers, "workers", 16, "parallel workers creating objects")
	flag.StringVar(&o.namespace, "namespace", "demo", "namespace of the objects")
	flag.Parse()

	if err := o.validate(); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, newUI(os.Stdout, os.Stderr)); err != nil {
		fmt.Fprintf(os.Stderr, "\ndemo failed: %v\n", err)
		os.Exit(1)
	}
}

// validate says what is wrong with the flags, if anything.
func (o options) validate() error {
	switch {
	case o.pods < 1:
		return fmt.Errorf("--pods %d: want 1 or more", o.pods)
	case o.nodes <= agentNode:
		return fmt.Errorf("--nodes %d: want %d or more (the projection step runs node-%02d's agent)", o.nodes, agentNode+1, agentNode)
	}
	return nil
}

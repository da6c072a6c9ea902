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
	workers    int
	namespace  string
}

func main() {
	var o options
	flag.IntVar(&o.configMaps, "configmaps", 3000, "ConfigMaps to create")
	flag.IntVar(&o.widgets, "widgets", 2000, "Widgets to create")
	flag.IntVar(&o.workers, "workers", 16, "parallel workers creating objects")
	flag.StringVar(&o.namespace, "namespace", "demo", "namespace of the objects")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, newUI(os.Stdout, os.Stderr)); err != nil {
		fmt.Fprintf(os.Stderr, "\ndemo failed: %v\n", err)
		os.Exit(1)
	}
}

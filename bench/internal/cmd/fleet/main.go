package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/fleet"
	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/rest"
)

func main() {
	if err := member(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(1)
	}
}

// member is the replica -fleet of the fleet -fleet-name.
func member(args []string) error {
	a, err := child.ParseArgs(args)
	if err != nil {
		return err
	}
	if a.Fleet == "" || a.FleetName == "" {
		return fmt.Errorf("-fleet and -fleet-name are required")
	}
	cfg, err := a.Config()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // the parent closes stdin, or dies
		_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		cancel()
	}()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	f, err := fleet.New(cfg, fleet.Options{Name: a.FleetName, Namespace: a.Namespace, Identity: a.Fleet, Shards: child.FleetShards,
		LeaseDuration: child.FleetLease, RenewDeadline: child.FleetLease * 2 / 3, RetryPeriod: child.FleetLease / 5})
	if err != nil {
		return err
	}
	out := &lockedWriter{w: os.Stdout}
	err = f.Run(ctx, func(ctx context.Context, shard int) error {
		s, err := coresyncers.NewConfigMapSyncer(cfg, runtime.WithHTTPClient(hc), runtime.WithNamespace(a.Namespace),
			runtime.WithShard(shard, child.FleetShards))
		if err != nil {
			return err
		}
		ran := make(chan error, 1)
		go func() { ran <- s.Run(ctx) }()
		if err := s.WaitForSync(ctx); err != nil {
			<-ran
			return nil // given up before it synced
		}
		if err := out.msg(child.MsgHeld, child.ShardReport{Shard: shard, Objects: s.Store().Len()}); err != nil {
			return err
		}
		<-ran
		return out.msg(child.MsgReleased, child.ShardReport{Shard: shard})
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// lockedWriter writes the messages of several goroutines whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) msg(kind string, v any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return driver.WriteMsg(l.w, kind, v)
}

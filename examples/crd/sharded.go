package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/rest"

	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/fleet"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// fleetName names the Leases of the widget controller's replicas. A
// change of --shards needs another name (see fleet.Options.Shards).
func fleetName(shards int) string { return fmt.Sprintf("crd-widgets-%d", shards) }

// runSharded is run with --reconcile --shards N: this replica takes its
// part of N shards through a fleet of Leases, and runs, for each shard it
// holds, a controller of that shard's widgets alone: a syncer with
// runtime.WithShard, a queue, workers. A shard it gives up (to a replica
// that joined, or lost when it cannot renew) starts no more reconciles,
// waits for the status writes in hand to be answered (for half of what the
// fleet leaves the work to return: one the server has not answered by then
// is given up, said, and may still land), stops its syncer and drops its
// queue, and only then returns to the fleet, which releases the shard; the
// replica that takes it over reconciles its widgets. Status writes are
// guarded by the widget's resourceVersion as well: two replicas that both
// believed they held a shard (a process paused past its lease, or a write
// given up that lands late) would meet a conflict, never overwrite each
// other's newer write.
func runSharded(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error {
	hc, err := rest.HTTPClientFor(cfg) // one connection for the Leases, the shards' syncers and status writes
	if err != nil {
		return err
	}
	status, err := newStatusWriter(cfg, hc)
	if err != nil {
		return err
	}
	log := funcr.New(func(prefix, args string) { fmt.Fprintln(stderr, prefix, args) }, funcr.Options{})
	f, err := fleet.New(cfg, fleet.Options{
		Name: fleetName(o.shards), Namespace: o.leaseNamespace, Identity: o.replica, Shards: o.shards,
		LeaseDuration: o.leaseDuration, RenewDeadline: renewDeadline(o.leaseDuration), RetryPeriod: o.leaseDuration / 5,
		Logger: log,
	})
	if err != nil {
		return err
	}
	h := &holdings{replica: o.replica, n: o.shards, out: stdout}
	fmt.Fprintf(stderr, "replica %s joins fleet %s in namespace %s\n", o.replica, fleetName(o.shards), o.leaseNamespace)
	return f.Run(ctx, func(ctx context.Context, shard int) error {
		return runShard(ctx, cfg, hc, o, status, h, shard)
	})
}

// renewDeadline is how long a replica keeps working on a shard it cannot
// renew: two thirds of the lease, which leaves the shard's work a third of
// it to return once told to stop.
func renewDeadline(lease time.Duration) time.Duration { return lease * 2 / 3 }

// runShard reconciles the widgets of one shard until ctx is done. It
// returns only once its workers have returned, each having had the answer
// to the status write in hand (see controller.work), so that none of its
// writes lands after the fleet has passed the shard on. A status write may
// take half of what the fleet leaves the work to return; one the server
// has not answered by then is given up and said (it may still land).
func runShard(ctx context.Context, cfg *rest.Config, hc *http.Client, o options, status *statusWriter, h *holdings, shard int) error {
	started := time.Now()
	opts := []runtime.Option{runtime.WithHTTPClient(hc), runtime.WithNamespace(o.namespace), runtime.WithShard(shard, o.shards)}
	if o.snapshotDir != "" {
		// The snapshot names the shard's selector: one of another shard,
		// or of another number of shards, is never used.
		opts = append(opts, runtime.WithSnapshot(filepath.Join(o.snapshotDir, fmt.Sprintf("widgets-shard-%d-of-%d.snapshot", shard, o.shards))))
	}
	widgets, err := shopsyncers.NewWidgetSyncer(cfg, opts...)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("shard %d of %d", shard, o.shards)
	c := newController(widgets, status, name, h.out, (o.leaseDuration-renewDeadline(o.leaseDuration))/2)
	ctx, cancel := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- widgets.Run(ctx) }()
	held := false
	defer func() {
		cancel()
		c.stop()
		if err := <-ran; err != nil && !errors.Is(err, context.Canceled) { // a snapshot not saved, say
			fmt.Fprintf(h.out, "replica %s, %s: %v\n", h.replica, name, err)
		}
		if held {
			h.remove(ctx, shard)
		}
	}()
	wctx, stop := context.WithTimeout(ctx, o.syncTimeout)
	defer stop()
	if err := widgets.WaitForSync(wctx); err != nil {
		return fmt.Errorf("%s: %w (last error: %v)", name, err, widgets.LastError())
	}
	h.add(shard, fmt.Sprintf("%d widgets synced in %s, mode=%s, %s", widgets.Store().Len(), time.Since(started).Round(time.Millisecond),
		widgets.Mode(), widgets.ShardMode()))
	held = true
	c.start(ctx, fmt.Sprintf("replica %s, %s: ", h.replica, name))
	<-ctx.Done()
	return nil
}

// holdings prints which shards this replica holds, after each change.
type holdings struct {
	replica string
	n       int
	out     io.Writer
	mu      sync.Mutex
	held    []int
}

func (h *holdings) add(shard int, what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = append(h.held, shard)
	slices.Sort(h.held)
	fmt.Fprintf(h.out, "replica %s took shard %d: %s\n", h.replica, shard, what)
	h.print()
}

func (h *holdings) remove(ctx context.Context, shard int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = slices.DeleteFunc(h.held, func(s int) bool { return s == shard })
	fmt.Fprintf(h.out, "replica %s gave up shard %d: %v\n", h.replica, shard, context.Cause(ctx))
	h.print()
}

// print says what is held; h.mu is held.
func (h *holdings) print() {
	fmt.Fprintf(h.out, "replica %s holds %d of %d shards: %v\n", h.replica, len(h.held), h.n, h.held)
}

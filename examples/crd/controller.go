package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/prometheusmetrics"
	"github.com/syncer-gen/syncer-gen/queue"
	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
)

// controller reconciles each widget's status.phase with its spec, from the
// syncer's store, with retries from the work queue's rate limiter.
type controller struct {
	widgets *shopsyncers.WidgetSyncer
	owned   *runtime.Writes[*shopv1alpha1.Widget] // its status writes: a reconcile reads what it wrote
	status  *statusWriter
	q       workqueue.TypedRateLimitingInterface[runtime.Key]
	out     io.Writer
	// writeTimeout bounds a status write, which the end of the workers'
	// context does not cancel: see work.
	writeTimeout time.Duration
	workers      sync.WaitGroup
	// prefix starts the lines of this controller's workers (start's what).
	prefix string

	// The first pass over every widget is counted, not printed line by
	// line; once the queue has drained, each status write is printed.
	writes, retries, inflight atomic.Int64
	settled                   atomic.Bool
}

// phaseOf is the status a widget's spec calls for: a widget is Ready once
// it has an owner and a size, Pending before.
func phaseOf(w *shopv1alpha1.Widget) string {
	if w.Spec.Owner != "" && w.Spec.Size > 0 {
		return "Ready"
	}
	return "Pending"
}

// runController is run with --reconcile: a set with the widget syncer, a
// queue fed by it, workers reconciling until ctx is done, and /metrics.
func runController(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error {
	reg := prometheus.NewRegistry()
	m, err := prometheusmetrics.New(reg)
	if err != nil {
		return err
	}
	set, err := syncerset.New(cfg, syncerset.WithMetrics(m.For))
	if err != nil {
		return err
	}
	widgets, err := shopsyncers.WidgetSyncerIn(set, runtime.WithNamespace(o.namespace))
	if err != nil {
		return err
	}
	status, err := newStatusWriter(cfg, set.HTTPClient())
	if err != nil {
		return err
	}
	c := newController(widgets, status, "widgets", stdout, 10*time.Second)

	if o.metricsAddr != "" {
		ln, err := net.Listen("tcp", o.metricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		srv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		fmt.Fprintf(stderr, "serving metrics on http://%s/metrics\n", ln.Addr())
	}

	ctx, cancel := context.WithCancel(ctx)
	defer func() { cancel(); c.stop(); set.Wait() }()
	set.Start(ctx)
	waitCtx, stop := context.WithTimeout(ctx, o.syncTimeout)
	defer stop()
	if err := set.WaitForSync(waitCtx); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "synced %d widgets; reconciling\n", widgets.Store().Len())
	c.start(ctx, "")
	<-ctx.Done()
	return nil
}

// newController makes a controller of the widgets of one syncer, its queue
// fed by the syncer's handler; a status write may take up to writeTimeout.
func newController(widgets *shopsyncers.WidgetSyncer, status *statusWriter, name string, out io.Writer, writeTimeout time.Duration) *controller {
	c := &controller{
		widgets: widgets,
		owned:   runtime.NewWrites(widgets.Syncer, 0),
		status:  status,
		q: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[runtime.Key](),
			workqueue.TypedRateLimitingQueueConfig[runtime.Key]{Name: name}),
		out:          out,
		writeTimeout: writeTimeout,
	}
	widgets.AddHandler(queue.Enqueue(c.q, queue.ObjectKey[*shopv1alpha1.Widget]), runtime.WithHandlerName("queue"))
	return c
}

// start runs the workers until the queue shuts down and, once the first
// pass is over, says so, prefixed with what (a shard's name, or "").
func (c *controller) start(ctx context.Context, what string) {
	c.prefix = what
	for range 2 {
		c.workers.Go(func() { c.work(ctx) })
	}
	c.settle(ctx, what, c.widgets.Store().Len())
}

// stop shuts the queue down and waits for the workers to return, each
// once the write in hand has been answered: nothing this controller wrote
// lands after stop returns. The workers' context must have ended (or
// start not have been called).
func (c *controller) stop() {
	c.q.ShutDown()
	c.workers.Wait()
}

// settle waits until the first pass is over (the queue is empty and no
// worker busy), says what it did, and from then on has each write printed.
func (c *controller) settle(ctx context.Context, what string, n int) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for c.q.Len() > 0 || c.inflight.Load() > 0 {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
	c.settled.Store(true)
	fmt.Fprintf(c.out, "%sreconciled %d widgets: %d status writes, %d retries\n", what, n, c.writes.Load(), c.retries.Load())
}

// work takes keys from the queue until it shuts down. Once ctx has ended
// it reconciles nothing more, and the keys still queued are dropped; a
// reconcile under way when ctx ends finishes its status write rather than
// cancel it, since a write cancelled on its way may still land at the
// server after the worker has returned (in a sharded controller, after
// the shard has passed to another replica).
func (c *controller) work(ctx context.Context) {
	for {
		k, shutdown := c.q.Get()
		if shutdown {
			return
		}
		if ctx.Err() != nil {
			c.q.Done(k)
			continue
		}
		c.inflight.Add(1)
		if err := c.reconcile(ctx, k); err != nil {
			c.retries.Add(1)
			if c.settled.Load() {
				fmt.Fprintf(c.out, "reconcile %s: %v (retry %d)\n", k, err, c.q.NumRequeues(k)+1)
			}
			c.q.AddRateLimited(k)
		} else {
			c.q.Forget(k)
		}
		c.q.Done(k)
		c.inflight.Add(-1)
	}
}

// reconcile makes the status of the widget at k what its spec calls for.
// A conflict (the store is behind the server) is an error: the key comes
// back after the rate limiter's wait, when the store has caught up.
func (c *controller) reconcile(ctx context.Context, k runtime.Key) error {
	w, ok, err := c.owned.Get(ctx, k.Namespace, k.Name) // once the store has seen this controller's last write of it
	if err != nil {
		return err
	}
	if !ok {
		return nil // deleted: nothing to do
	}
	phase := phaseOf(w)
	if w.Status.Phase == phase {
		return nil
	}
	w = w.DeepCopy() // the store's objects are shared: never modify them
	w.Status.Phase = phase
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.writeTimeout)
	defer cancel()
	end := c.owned.Begin(w.Namespace, w.Name)
	defer end() // once Wrote has recorded the answer
	out, err := c.status.update(wctx, w)
	if err != nil {
		if errors.Is(wctx.Err(), context.DeadlineExceeded) {
			// Given up unanswered at its bound: the write may land yet,
			// after this worker has returned. Said, first pass or not; its
			// resourceVersion keeps it from overwriting a newer write.
			fmt.Fprintf(c.out, "%sstatus write of %s/%s given up after %s, unanswered: it may still land\n", c.prefix, w.Namespace, w.Name, c.writeTimeout)
		}
		return err
	}
	c.owned.Wrote(out)
	c.writes.Add(1)
	if c.settled.Load() {
		fmt.Fprintf(c.out, "%s/%s: %s\n", w.Namespace, w.Name, phase)
	}
	return nil
}

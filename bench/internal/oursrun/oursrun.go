package oursrun

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/rest"
)

// Run runs our syncer until it has synced, with the slow handler and the
// probe as its Metrics when the contender has one.
func Run[P runtime.Object](ctx context.Context, e *child.Env,
	newSyncer func(*rest.Config, ...runtime.Option) (*runtime.Syncer[P], error), opts ...runtime.Option) (child.Outcome, error) {
	opts = append([]runtime.Option{scope(e)}, opts...)
	if e.Slow != nil {
		opts = append(opts, runtime.WithMetrics(metrics{p: e.Probe}))
	}
	if e.Snapshot != "" {
		opts = append(opts, runtime.WithSnapshot(e.Snapshot))
	}
	if e.Shards > 0 {
		opts = append(opts, runtime.WithShard(e.Shard, e.Shards))
	}
	if e.FieldSelector != "" {
		opts = append(opts, runtime.WithFieldSelector(e.FieldSelector))
	}
	s, err := newSyncer(e.Cfg, opts...)
	if err != nil {
		return child.Outcome{}, err
	}
	var added, failures atomic.Int64
	var lastErr atomic.Value
	s.AddHandler(runtime.HandlerFuncs[P]{
		AddFunc:    func(P) { added.Add(1) },
		UpdateFunc: func(_, obj P) { e.Lags.Observe(obj) },
		ErrorFunc: func(err error) {
			failures.Add(1)
			lastErr.Store(err.Error())
		},
	})
	if e.Slow != nil {
		reg := s.AddHandler(runtime.HandlerFuncs[P]{
			AddFunc:    func(P) { e.Slow.Call() },
			UpdateFunc: func(_, _ P) { e.Slow.Call() },
			DeleteFunc: func(P, runtime.Deletion) { e.Slow.Call() },
		}, runtime.WithHandlerName(child.SlowHandlerName))
		e.Slow.Pending = reg.Pending
	}
	stopRun, ran, err := Start(ctx, e, s, &lastErr)
	if err != nil {
		return child.Outcome{}, err
	}
	note := "mode=" + s.Mode().String()
	if e.Shards > 0 {
		note += " shard=" + s.ShardMode().String()
	}
	if n := failures.Load(); n > 0 {
		note += fmt.Sprintf(" errors=%d last=%v", n, lastErr.Load())
	}
	out := child.Outcome{Objects: int(added.Load()), Note: note, Keep: s, StoreBytes: s.Store().Bytes(), Keys: func() []string {
		var keys []string
		for _, o := range s.Store().List() {
			keys = append(keys, o.GetNamespace()+"/"+o.GetName()+" "+o.GetResourceVersion())
		}
		return keys
	}}
	out.Stop = func() error {
		stopRun()
		if e.Snapshot == "" {
			return nil
		}
		return <-ran // Run saves the snapshot before it returns
	}
	return out, nil
}

// Start runs s until ctx ends or the returned stop is called, and waits
// for it to sync, at most e.Timeout; ran has what Run returned once it
// did. lastErr holds the last error its handler was told, for the error
// of a sync that did not end.
func Start[P runtime.Object](ctx context.Context, e *child.Env, s *runtime.Syncer[P], lastErr *atomic.Value) (stop func(), ran <-chan error, err error) {
	runCtx, stopRun := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(runCtx) }()
	wctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	if err := s.WaitForSync(wctx); err != nil {
		stopRun()
		return nil, nil, fmt.Errorf("not synced: %w (last error: %v)", err, lastErr.Load())
	}
	return stopRun, done, nil
}

// scope is the option that gives the syncer e's objects: its namespace, or
// the names of it that e names.
func scope(e *child.Env) runtime.Option {
	if len(e.Names) == 0 {
		return runtime.WithNamespace(e.Namespace)
	}
	keys := make([]runtime.Key, len(e.Names))
	for i, n := range e.Names {
		keys[i] = runtime.Key{Namespace: e.Namespace, Name: n}
	}
	return runtime.WithNames(keys...)
}

// metrics is our syncer's runtime.Metrics in the steady state of a
// contender with a slow handler: its watch restarts and the slow handler's
// queue depth, counted by the probe.
type metrics struct {
	runtime.NopMetrics
	p *child.Probe
}

func (m metrics) Reconnected(r runtime.Reason) { m.p.Restart("reconnected", string(r)) }
func (m metrics) Relisted(r runtime.Reason)    { m.p.Restart("relisted", string(r)) }

func (m metrics) HandlerQueueDepth(handler string, depth int) {
	if handler == child.SlowHandlerName {
		m.p.Depth(depth)
	}
}

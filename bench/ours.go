package main

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/rest"
)

// runOurs runs our syncer until it has synced, with the slow handler and
// the probe as its Metrics when the contender has one.
func runOurs[P runtime.Object](ctx context.Context, e *childEnv,
	newSyncer func(*rest.Config, ...runtime.Option) (*runtime.Syncer[P], error), opts ...runtime.Option) (syncOutcome, error) {
	opts = append([]runtime.Option{runtime.WithNamespace(e.namespace)}, opts...)
	if e.slow != nil {
		opts = append(opts, runtime.WithMetrics(e.probe))
	}
	if e.snapshot != "" {
		opts = append(opts, runtime.WithSnapshot(e.snapshot))
	}
	if e.shards > 0 {
		opts = append(opts, runtime.WithShard(e.shard, e.shards))
	}
	if e.fieldSelector != "" {
		opts = append(opts, runtime.WithFieldSelector(e.fieldSelector))
	}
	s, err := newSyncer(e.cfg, opts...)
	if err != nil {
		return syncOutcome{}, err
	}
	var added, failures atomic.Int64
	var lastErr atomic.Value
	s.AddHandler(runtime.HandlerFuncs[P]{
		AddFunc:    func(P) { added.Add(1) },
		UpdateFunc: func(_, obj P) { e.lags.observe(obj) },
		ErrorFunc: func(err error) {
			failures.Add(1)
			lastErr.Store(err.Error())
		},
	})
	if e.slow != nil {
		reg := s.AddHandler(runtime.HandlerFuncs[P]{
			AddFunc:    func(P) { e.slow.call() },
			UpdateFunc: func(_, _ P) { e.slow.call() },
			DeleteFunc: func(P, runtime.Deletion) { e.slow.call() },
		}, runtime.WithHandlerName(slowHandlerName))
		e.slow.pending = reg.Pending
	}
	runCtx, stopRun := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- s.Run(runCtx) }()
	wctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	if err := s.WaitForSync(wctx); err != nil {
		stopRun()
		return syncOutcome{}, fmt.Errorf("not synced: %w (last error: %v)", err, lastErr.Load())
	}
	note := "mode=" + s.Mode().String()
	if e.shards > 0 {
		note += " shard=" + s.ShardMode().String()
	}
	if n := failures.Load(); n > 0 {
		note += fmt.Sprintf(" errors=%d last=%v", n, lastErr.Load())
	}
	out := syncOutcome{objects: int(added.Load()), note: note, keep: s, storeBytes: s.Store().Bytes(), keys: func() []string {
		var keys []string
		for _, o := range s.Store().List() {
			keys = append(keys, o.GetNamespace()+"/"+o.GetName()+" "+o.GetResourceVersion())
		}
		return keys
	}}
	out.stop = func() error {
		stopRun()
		if e.snapshot == "" {
			return nil
		}
		return <-ran // Run saves the snapshot before it returns
	}
	return out, nil
}

package ctrlsyncer

import (
	"context"
	"errors"
	"strings"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// Runner is what Runnable runs: a syncer (runtime.Syncer, or a generated
// one, which embeds it).
type Runner interface {
	Run(ctx context.Context) error
	Resource() runtime.Resource
}

// Runnable returns a manager.Runnable that runs the syncers until the
// Manager stops. It does not need leader election: the Manager starts it
// before it campaigns, so a standby replica keeps the syncers synced and a
// new leader's controllers start on synced stores. Add it to the Manager
// once (mgr.Add). Its String names the resources. The syncers log where
// their options say: give them runtime.WithLogger(mgr.GetLogger()) to see
// why one does not sync (NewClient's syncers do so by themselves).
func Runnable(syncers ...Runner) manager.Runnable { return runnable(syncers) }

type runnable []Runner

// Start runs every syncer and returns once all returned, with their
// errors.
func (r runnable) Start(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make([]error, len(r))
	for i, s := range r {
		wg.Go(func() { errs[i] = s.Run(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// NeedLeaderElection is false: syncers only read, and a standby replica
// should hold synced stores.
func (runnable) NeedLeaderElection() bool { return false }

// String names the resources, e.g. "syncers: widgets.shop.example.com/v1alpha1".
func (r runnable) String() string {
	names := make([]string, len(r))
	for i, s := range r {
		names[i] = s.Resource().String()
	}
	return "syncers: " + strings.Join(names, ", ")
}

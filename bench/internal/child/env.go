package child

import (
	"context"
	"time"

	"k8s.io/client-go/rest"
)

// Run runs one contender of a program until it has synced resource.
type Run func(ctx context.Context, contender, resource string, e *Env) (Outcome, error)

// Env is what a contender gets to work with.
type Env struct {
	Cfg       *rest.Config
	Namespace string
	Plural    string
	Timeout   time.Duration // longest wait for sync
	Lags      *LagObserver  // handlers report updates here
	Probe     *Probe        // counts restarts and queue depth in the steady state
	Slow      *SlowHandler  // the second handler; nil for contenders without one
	Snapshot  string        // our syncer's snapshot file; "" for none
	Shard     int           // with Shards > 0: our syncer syncs shard Shard of Shards
	Shards    int
	Want      int // the objects the resource holds; 0 for an idle run
	// FieldSelector: every contender syncs only what it selects.
	FieldSelector string
	// Names, when not empty, are the only objects of Namespace the
	// contender syncs (or reads), by name: the named part's.
	Names []string
}

// Outcome is what a contender reports once synced.
type Outcome struct {
	Objects int
	Note    string // e.g. the mode our syncer used
	// StoreBytes is what our syncer's store says it holds (Store.Bytes).
	StoreBytes int64
	Keep       any // kept alive until the child exits
	// Keys returns "namespace/name resourceVersion" of each stored object;
	// nil for a contender that does not show its store.
	Keys func() []string
	// Stop, when not nil, ends the contender before the child exits.
	Stop func() error
}

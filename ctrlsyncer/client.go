package ctrlsyncer

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

// Client is a client.Client for a reconciler: its reads of a resource that
// has a syncer in it (see For, Owns and Add) come from that syncer, with
// the Reader's semantics (waiting for the sync, deep copies with their
// GroupVersionKind, MatchingFields served by the syncer's indexes); every
// other read, and every write, goes to the Manager's client. Switching a
// kubebuilder reconciler to syncers is giving it a Client instead of
// mgr.GetClient(). Its methods are safe for concurrent use.
type Client struct {
	client.Client // the Manager's: writes, and reads of what no syncer serves
	reader        *Reader
	set           *syncerset.Set
	started       atomic.Bool

	consistent bool           // reads wait for the Client's own writes (see Client)
	waitLimit  time.Duration  // how long a read waits for them
	cacheOpts  *cache.Options // WithCacheOptions: the namespaces of each type

	mu      sync.Mutex
	served  map[reflect.Type]served
	indexes map[reflect.Type]*indexes // FieldIndexer's, by *T
}

// served is the syncer that serves a type's reads, its options, and the
// Client's writes of it.
type served struct {
	syncer     any // *runtime.Syncer[T]
	opts       string
	name       string
	apiVersion string
	kind       string
	writes     writer
	remove     func(context.Context) error // syncerset.Remove of it
}

// NewClient returns a Client over mgr's client, and adds its syncers to
// mgr as a runnable that starts before leader election, so that a standby
// replica keeps them synced. The syncers share one connection (a
// syncerset), log through mgr's logger unless told otherwise (WithLogger,
// or runtime.WithLogger for one syncer), re-deliver every object to their
// handlers every SyncPeriod as the Manager's cache does, and run until mgr
// stops.
func NewClient(mgr manager.Manager, opts ...ClientOption) (*Client, error) {
	o := clientOptions{logger: mgr.GetLogger().WithName("syncer")}
	for _, opt := range opts {
		opt(&o)
	}
	if err := checkCacheNamespaces(mgr, o); err != nil {
		return nil, fmt.Errorf("ctrlsyncer.NewClient: %w", err)
	}
	period := SyncPeriod
	if o.cacheOpts != nil && o.cacheOpts.SyncPeriod != nil {
		period = *o.cacheOpts.SyncPeriod
	}
	defaults := append([]runtime.Option{runtime.WithLogger(o.logger), runtime.WithResyncPeriod(period)}, o.syncerOpts...)
	setOpts := []syncerset.Option{syncerset.WithDefaults(defaults...)}
	if o.metrics != nil {
		setOpts = append(setOpts, syncerset.WithMetrics(o.metrics))
	}
	set, err := syncerset.New(mgr.GetConfig(), setOpts...)
	if err != nil {
		return nil, fmt.Errorf("ctrlsyncer.NewClient: %w", err)
	}
	consistent := managerReadsItsWrites(mgr.GetClient())
	if o.readYourWrites != nil {
		consistent = *o.readYourWrites
	}
	c := &Client{Client: mgr.GetClient(), reader: NewReader(o.readerOpts...), set: set, served: map[reflect.Type]served{},
		indexes: map[reflect.Type]*indexes{}, consistent: consistent, waitLimit: o.waitLimit, cacheOpts: o.cacheOpts}
	if err := mgr.Add(clientRunnable{c}); err != nil {
		return nil, fmt.Errorf("ctrlsyncer.NewClient: %w", err)
	}
	return c, nil
}

// Set returns the set the Client's syncers are in: a generated
// XSyncerIn(c.Set()) with the options given to For, Owns or Add returns
// the same syncer, e.g. to read its typed store or its Mode. The indexes
// FieldIndexer gave it count among its options: without runtime.WithIndex
// options of the same names, XSyncerIn makes another syncer (Add, which
// adds them, returns the same).
func (c *Client) Set() *syncerset.Set { return c.set }

// Get reads obj from its syncer if it has one in c, else from the Manager's
// client. With read-your-own-writes on, it first waits until the syncer's
// store has seen c's writes of that object.
func (c *Client) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if !c.reader.serves(obj) {
		return c.Client.Get(ctx, key, obj, opts...)
	}
	if w, on := c.writerOf(reflect.TypeOf(obj)); on && !(&client.GetOptions{}).ApplyOptions(opts).DisableReadYourWritesConsistency {
		if err := c.reader.readyFor(ctx, obj, key.Namespace); err != nil {
			return c.reader.Get(ctx, key, obj, opts...) // which tells it as the cache does
		}
		if err := w.waitGet(ctx, key); err != nil {
			return err
		}
	}
	return c.reader.Get(ctx, key, obj, opts...)
}

// List reads list from the syncer of its items if it has one in c, else
// from the Manager's client. With read-your-own-writes on, it first waits
// until the syncer's store has seen c's writes of the objects it picks,
// before or after each write.
func (c *Client) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	s, slice, err := c.reader.servesList(list)
	if err != nil || s == nil {
		return c.Client.List(ctx, list, opts...)
	}
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	if w, on := c.writerOf(reflect.PointerTo(slice.Type().Elem())); on && !lo.DisableReadYourWritesConsistency {
		if err := s.ready(ctx, lo.Namespace); err != nil {
			return c.reader.List(ctx, list, opts...) // which tells it as the cache does
		}
		if err := w.waitList(ctx, selectionOf(lo)); err != nil {
			return err
		}
	}
	return c.reader.List(ctx, list, opts...)
}

// serve makes s serve c's reads of T. Another syncer of T, made with
// other options, is an error: one syncer answers for a type.
func serve[T client.Object](c *Client, s *runtime.Syncer[T], opts []runtime.Option) error {
	t := reflect.TypeFor[T]()
	key := runtime.OptionsKey(opts...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.served[t]; ok {
		if prev.syncer != any(s) {
			return fmt.Errorf("ctrlsyncer: %s is read from its syncer made with options %q; another, with options %q, cannot serve the same reads", t, prev.opts, key)
		}
		return nil
	}
	res := s.Resource()
	apiVersion := res.Version
	if res.Group != "" {
		apiVersion = res.Group + "/" + res.Version
	}
	c.served[t] = served{syncer: s, opts: key, name: res.String(), apiVersion: apiVersion, kind: res.Kind, writes: newWriter(s, c.waitLimit),
		remove: func(ctx context.Context) error { return syncerset.Remove(ctx, c.set, s) }}
	register(c.reader, s, c.started.Load)
	return nil
}

// resources names the resources c's syncers serve, sorted.
func (c *Client) resources() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, s := range c.served {
		out = append(out, s.name)
	}
	slices.Sort(out)
	return out
}

// clientRunnable runs a Client's syncers in its Manager.
type clientRunnable struct{ c *Client }

// Start runs the syncers, and those added later, until ctx is done. It
// fails at once if IndexField declared indexes that no syncer keeps.
func (r clientRunnable) Start(ctx context.Context) error {
	if err := r.c.untakenIndexes(); err != nil {
		return err
	}
	r.c.started.Store(true)
	r.c.set.Start(ctx)
	<-ctx.Done()
	r.c.set.Wait()
	return nil
}

// NeedLeaderElection is false: syncers only read, and a standby replica
// should hold synced stores.
func (clientRunnable) NeedLeaderElection() bool { return false }

// String names the resources of the syncers, e.g. "ctrlsyncer client's
// syncers: jobs.batch/v1, widgets.shop.example.com/v1alpha1".
func (r clientRunnable) String() string {
	return "ctrlsyncer client's syncers: " + strings.Join(r.c.resources(), ", ")
}

var _ client.Client = (*Client)(nil)

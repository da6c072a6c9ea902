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

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

// Client is a client.Client for a reconciler: its reads of a resource that
// has a syncer in it (see For, Owns and Add) come from that syncer, with
// the Reader's semantics (waiting for the sync, deep copies with their
// GroupVersionKind, MatchingFields served by the syncer's indexes); every
// other read, and every write, goes to the client it wraps (the Manager's,
// or the reconciler's own). For, Owns and Add put it in the reconciler's
// Client field themselves: a kubebuilder reconciler switches in
// SetupWithManager alone. Its methods are safe for concurrent use.
type Client struct {
	client.Client // the Manager's, or the reconciler's: writes, and reads of what no syncer serves
	*syncers      // shared by every Client of the Manager
}

// syncers is the syncers of a Manager and what serves their reads: one
// set, one reader, one syncer per type, whichever reconcilers read them.
type syncers struct {
	cfg     *rest.Config // the Manager's
	reader  *Reader
	set     *syncerset.Set
	started atomic.Bool

	consistent  bool          // reads wait for the Client's own writes (see Client)
	waitLimit   time.Duration // how long a read waits for them
	cacheOpts   *cacheOptions // WithCacheOptions: what each type's syncer watches, and how its reads copy
	syncerOpts  []runtime.Option
	log         logr.Logger
	shadow      *shadow        // WithShadowReads: the cache answers, the syncers are compared
	noOlderThan *time.Duration // WithReadsNoOlderThan

	mu          sync.Mutex
	served      map[kind]served
	projections int               // of served, those of projections
	indexes     map[kind]*indexes // FieldIndexer's
}

// served is the syncer that serves a type's reads, its options, and the
// Client's writes of it.
type served struct {
	syncer    any // *runtime.Syncer[T]
	opts      string
	name      string
	typ       reflect.Type
	gvk       schema.GroupVersionKind
	projected bool // its type is not in the client's scheme: a projection of its resource (see projected.go)
	writes    writer
	remove    func(context.Context) error // syncerset.Remove of it
}

// The Manager's Client, by Manager: made by NewClient, or by the first of
// For, Owns, Add and FieldIndexer.
var (
	managersMu sync.Mutex
	managers   = map[manager.Manager]*Client{}
)

// NewClient makes the Client of mgr with opts, over mgr's client, and adds
// its syncers to mgr as a runnable that starts before leader election, so
// that a standby replica keeps them synced. The syncers share one
// connection (a syncerset), log through mgr's logger unless told otherwise
// (WithLogger, or runtime.WithLogger for one syncer), re-deliver every
// object to their handlers every SyncPeriod as the Manager's cache does,
// and run until mgr stops.
//
// For, Owns, Add and FieldIndexer make the Manager's Client with no
// options when NewClient has not: call NewClient, before them (in
// main.go, beside ctrl.NewManager), only to give options, e.g. the cache's
// (WithCacheOptions) of a Manager that watches some namespaces. A second
// NewClient of one Manager is an error.
func NewClient(mgr manager.Manager, opts ...ClientOption) (*Client, error) {
	managersMu.Lock()
	defer managersMu.Unlock()
	if _, ok := managers[mgr]; ok {
		return nil, fmt.Errorf("ctrlsyncer.NewClient: the Manager has its Client already (made by an earlier NewClient, or by For, Owns, Add or FieldIndexer with no options): call NewClient once, before them")
	}
	return newClient(mgr, opts)
}

// clientOf returns the Client of mgr, made with no options if need be.
func clientOf(mgr manager.Manager) (*Client, error) {
	managersMu.Lock()
	defer managersMu.Unlock()
	if c, ok := managers[mgr]; ok {
		return c, nil
	}
	return newClient(mgr, nil)
}

// newClient makes and registers the Client of mgr. managersMu is held.
func newClient(mgr manager.Manager, opts []ClientOption) (*Client, error) {
	o := clientOptions{logger: mgr.GetLogger().WithName("syncer")}
	for _, opt := range opts {
		opt(&o)
	}
	if err := checkCacheNamespaces(mgr, o); err != nil {
		return nil, fmt.Errorf("ctrlsyncer.NewClient: %w", err)
	}
	var cacheOpts *cacheOptions
	if o.cacheOpts != nil {
		var err error
		if cacheOpts, err = newCacheOptions(*o.cacheOpts, mgr.GetScheme(), mgr.GetRESTMapper()); err != nil {
			return nil, fmt.Errorf("ctrlsyncer.NewClient: WithCacheOptions: %w", err)
		}
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
	if o.shadow != nil {
		if !(o.shadow.rate > 0 && o.shadow.rate <= 1) {
			return nil, fmt.Errorf("ctrlsyncer.NewClient: WithShadowReads(%v, ...): the share of reads compared is more than 0 and at most 1", o.shadow.rate)
		}
		o.shadow.start(o.logger)
	}
	c := &Client{Client: mgr.GetClient(), syncers: &syncers{cfg: mgr.GetConfig(), reader: NewReader(o.readerOpts...), set: set, served: map[kind]served{},
		indexes: map[kind]*indexes{}, consistent: consistent, waitLimit: o.waitLimit, cacheOpts: cacheOpts, syncerOpts: o.syncerOpts, log: o.logger, shadow: o.shadow, noOlderThan: o.noOlderThan}}
	if err := mgr.Add(clientRunnable{c: c, forget: func() {
		managersMu.Lock()
		defer managersMu.Unlock()
		delete(managers, mgr)
	}}); err != nil {
		return nil, fmt.Errorf("ctrlsyncer.NewClient: %w", err)
	}
	managers[mgr] = c
	return c, nil
}

// use returns the Client that serves the reads of the reconciler whose
// client field is *c, and puts it there: *c itself if it is a Client; the
// Manager's Client if *c is the Manager's client (or nil); otherwise a
// Client over *c (the reconciler's own client, wrapped) sharing the
// Manager's syncers.
func use(mgr manager.Manager, c *client.Client) (*Client, error) {
	if c == nil {
		return nil, fmt.Errorf("ctrlsyncer: no client field given: give &r.Client, the reconciler's client, whose reads then come from the syncers")
	}
	if cl, ok := (*c).(*Client); ok {
		return cl, nil
	}
	shared, err := clientOf(mgr)
	if err != nil {
		return nil, err
	}
	if *c == nil || same(*c, mgr.GetClient()) {
		*c = shared
		return shared, nil
	}
	view := &Client{Client: *c, syncers: shared.syncers}
	*c = view
	return view, nil
}

// same tells whether a and b are one client (false for clients that do
// not compare).
func same(a, b client.Client) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}

// Set returns the set the Client's syncers are in: a generated
// XSyncerIn(c.Set()) with the options given to For, Owns or Add returns
// the same syncer, e.g. to read its typed store or its Mode. The indexes
// FieldIndexer gave it, and the options WithCacheOptions gave its type,
// count among its options: without them, XSyncerIn makes another syncer
// (Add, which adds them, returns the same).
func (c *Client) Set() *syncerset.Set { return c.set }

// Get reads obj from its syncer if it has one in c, else from the Manager's
// client. With read-your-own-writes on, it first waits until the syncer's
// store has seen c's writes of that object.
func (c *Client) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if !c.reader.serves(obj) {
		if s, ok := c.projectionFor(obj, false); ok {
			return readOfUpstream(obj, s)
		}
		return c.Client.Get(ctx, key, obj, opts...)
	}
	if c.shadow != nil {
		return c.shadow.get(ctx, c, key, obj, opts)
	}
	return c.syncersGet(ctx, key, obj, opts...)
}

// syncersGet is Get from the syncer that serves obj's type.
func (c *Client) syncersGet(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if w, on := c.writerOf(kindOf(obj)); on && !(&client.GetOptions{}).ApplyOptions(opts).DisableReadYourWritesConsistency {
		if err := c.reader.readyFor(ctx, obj, key); err != nil {
			return c.reader.Get(ctx, key, obj, opts...) // which tells it as the cache does
		}
		if err := w.waitGet(ctx, key); err != nil {
			return err
		}
	}
	if err := fresh(ctx, c, kindOf(obj), opts); err != nil {
		return err
	}
	return c.reader.Get(ctx, key, obj, opts...)
}

// List reads list from the syncer of its items if it has one in c, else
// from the Manager's client. With read-your-own-writes on, it first waits
// until the syncer's store has seen c's writes of the objects it picks,
// before or after each write.
func (c *Client) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	s, k, _, err := c.reader.listed(list)
	if err != nil || s == nil {
		if p, ok := c.projectionFor(list, true); ok {
			return readOfUpstream(list, p)
		}
		return c.Client.List(ctx, list, opts...)
	}
	if c.shadow != nil {
		return c.shadow.list(ctx, c, k, list, opts)
	}
	return c.syncersList(ctx, list, opts...)
}

// syncersList is List from the syncer that serves the type of list's
// items.
func (c *Client) syncersList(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	s, k, _, err := c.reader.listed(list)
	if err != nil {
		return err
	}
	if s == nil {
		return noSyncer(list)
	}
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	if w, on := c.writerOf(k); on && !lo.DisableReadYourWritesConsistency {
		if err := s.ready(ctx, lo.Namespace); err != nil {
			return c.reader.List(ctx, list, opts...) // which tells it as the cache does
		}
		if err := w.waitList(ctx, selectionOf(lo)); err != nil {
			return err
		}
	}
	if err := fresh(ctx, c, k, opts); err != nil {
		return err
	}
	return c.reader.List(ctx, list, opts...)
}

// serve makes s serve c's reads of T, handing out the store's objects if
// share. Another syncer of T, made with other options, is an error: one
// syncer answers for a type.
func serve[T client.Object](c *Client, s *runtime.Syncer[T], opts []runtime.Option, share bool) error {
	res := s.Resource()
	t := kindOfSyncer[T](res)
	key := runtime.OptionsKey(opts...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.served[t]; ok {
		if prev.syncer != any(s) {
			return fmt.Errorf("ctrlsyncer: %s is read from its syncer made with options %q; another, with options %q, cannot serve the same reads", t, prev.opts, key)
		}
		return nil
	}
	projected := !anyResource(t.t) && !inScheme[T](c.Scheme())
	if projected {
		c.projections++
	}
	c.served[t] = served{syncer: s, opts: key, name: res.String(), typ: t.t, gvk: gvkOf(res), projected: projected,
		writes: newWriter(s, c.waitLimit),
		remove: func(ctx context.Context) error { return syncerset.Remove(ctx, c.set, s) }}
	register(c.reader, s, c.started.Load)
	if share {
		c.reader.shareObjects(t)
	}
	return nil
}

// resourceOf names the resource of c's syncer of k.
func (c *Client) resourceOf(k kind) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.served[k].name
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
type clientRunnable struct {
	c      *Client
	forget func() // the Manager's Client is forgotten once it stopped
}

// Start runs the syncers, and those added later, until ctx is done. It
// fails at once if IndexField declared indexes that no syncer keeps.
func (r clientRunnable) Start(ctx context.Context) error {
	defer r.forget()
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

package runtime

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/rest"
)

// Syncer keeps a typed local copy of one resource in sync with an API server.
// Create it with New, add handlers, then call Run.
type Syncer[T Object] struct {
	cfg      config
	res      Resource
	cache    *cache[T]
	src      *source[T] // nil for a Syncer made by NewDriver
	part     *part      // the objects its sync loop keeps in the cache (see parts.go)
	lanes    *lanes[T]  // WithNamespaces or WithNames: a sync loop per namespace or name (see namespaces.go, names.go)
	parent   *Syncer[T] // for the loop of one namespace or name of a Syncer over several, that Syncer
	mode     atomic.Int32
	running  atomic.Bool
	closing  closing // see Close
	progress progress
	lastErr  atomic.Pointer[SyncError]
	lag      lagState // its probes (lag.go)

	saving sync.Mutex // one snapshot written at a time

	// Owned by the Run goroutine.
	rv        string           // last resourceVersion seen; "" means a full resync is due
	due       Reason           // why the next resync is due
	cuts      int              // WatchList streams in a row cut before their end bookmark
	snap      <-chan loaded[T] // the snapshot being loaded for a warm start, until it is used
	fromStore bool             // a 410 on a running Syncer: the next resync starts warm from the store
	noMeta    bool             // the server refused the metadata-only LIST: no warm resync from the store
	warm      *warmState[T]    // a warm start waiting for its watch
	warmFails warmFailures     // attempts in a row of a warm resync that failed the same way
	drift     driftState       // when the next drift check is due (WithDriftCheck)
	bad       map[Key]string   // objects whose version of this resourceVersion could not be decoded, reported
}

// New returns a Syncer of T for res, talking to the server of cfg. It
// checks res and the options and reports every problem it finds.
func New[T Object](cfg *rest.Config, res Resource, opts ...Option) (*Syncer[T], error) {
	if err := res.validate(); err != nil {
		return nil, err
	}
	if err := checkList[T](res); err != nil {
		return nil, err
	}
	s := newSyncer[T](res, opts)
	if err := s.cfg.validate(); err != nil {
		return nil, fmt.Errorf("runtime.New: %s: %w", res, err)
	}
	cd, err := newCodec[T](res)
	if err != nil {
		return nil, err
	}
	if s.cfg.namespacesSet && res.Namespaced || s.cfg.namesSet {
		if err := s.makeLanes(cfg, cd); err != nil {
			return nil, fmt.Errorf("runtime.New: %s: %w", res, err)
		}
	}
	src, err := newSource[T](cfg, res, &s.cfg, cd)
	if err != nil {
		return nil, err
	}
	s.src, src.report = src, s.report
	return s, nil
}

func newSyncer[T Object](res Resource, opts []Option) *Syncer[T] {
	s := &Syncer[T]{cfg: defaultConfig(), res: res, due: ReasonInitial}
	for _, o := range opts {
		o(&s.cfg)
	}
	s.cfg.resource, s.cfg.namespaced = res.String(), res.Namespaced
	s.cache = newCache[T](&s.cfg)
	s.part = s.cache.whole
	return s
}

// checkList tells whether res.NewList makes a list whose Items are T's
// struct type (or pointers to it), so that a mismatch fails here rather
// than at the first LIST page.
func checkList[T Object](res Resource) error {
	want := reflect.TypeFor[T]()
	list := reflect.TypeOf(res.NewList())
	if list == nil || list.Kind() != reflect.Pointer || list.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("resource %q: NewList returns %v, not a pointer to a list struct", res.Resource, list)
	}
	items, ok := list.Elem().FieldByName("Items")
	if !ok || items.Type.Kind() != reflect.Slice {
		return fmt.Errorf("resource %q: NewList returns %v, which has no Items slice", res.Resource, list)
	}
	if elem := items.Type.Elem(); elem != want && reflect.PointerTo(elem) != want {
		return fmt.Errorf("resource %q: NewList returns %v, whose Items are %v, not %v", res.Resource, list, elem, want.Elem())
	}
	return nil
}

// Store returns the Syncer's local copy.
func (s *Syncer[T]) Store() *Store[T] { return s.cache.store }

// AddHandler registers h, with a queue and a goroutine of its own, and
// returns its registration (Remove, HasSynced). h first gets the current
// state (OnAdd for each stored object, and OnSync if synced), then live
// events. AddHandler may be called at any time, from inside a handler too.
func (s *Syncer[T]) AddHandler(h Handler[T], opts ...HandlerOption) *Registration {
	return s.cache.addHandler(h, opts)
}

// HasSynced tells whether the store has matched a consistent snapshot of
// the server at least once (of every namespace, over several: see
// WithNamespaces). Handlers may still be receiving it: see WaitForSync and
// Registration.HasSynced.
func (s *Syncer[T]) HasSynced() bool { return s.cache.synced.Load() }

// WaitForSync blocks until the store has matched a consistent snapshot of
// the server and every handler registered at that moment has received
// OnSync, or until ctx is done (or Close). Do not call it from inside a
// handler: the handler would wait for itself.
func (s *Syncer[T]) WaitForSync(ctx context.Context) error {
	select {
	case <-s.cache.syncedCh:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closing.signal():
		select {
		case <-s.cache.syncedCh:
		default:
			return errSyncerClosed
		}
	}
	return s.cache.waitHandlersSynced(ctx)
}

// Mode tells how the last (re)sync got the initial state (of any
// namespace, over several).
func (s *Syncer[T]) Mode() Mode {
	if s.lanes != nil {
		return s.lanes.mode()
	}
	return Mode(s.mode.Load())
}

// Resource returns the resource the Syncer is bound to.
func (s *Syncer[T]) Resource() Resource { return s.res }

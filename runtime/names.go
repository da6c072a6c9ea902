package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A Syncer over names (WithNames) keeps the objects of a set of keys,
// each read with a LIST and WATCH limited to its name
// (fieldSelector=metadata.name=<name>, in its namespace): an RBAC Role
// whose rules name those objects in resourceNames is enough, as
// kube-apiserver authorizes such a request as one of that name. Each
// name is a lane, as each namespace of WithNamespaces is (namespaces.go):
// its own requests, resourceVersion, retries, warm start and part of the
// cache, so that a name the server refuses holds back no other.

// WithNames makes the Syncer keep only the objects of the keys given, and
// read each by itself: a LIST and WATCH (a WatchList where served) of its
// name in its namespace, so that a program allowed to read a few objects
// by name (a Role with resourceNames) can sync them, and one that reads a
// few objects of a large resource keeps and reads only those. For a
// cluster-scoped resource the keys have no namespace. AddNames,
// RemoveNames and SetNames change the set at any time; with no key given
// the Syncer keeps nothing, and once run it has synced (all of none):
// names added later are synced as a namespace added to WithNamespaces is,
// HasSynced staying true (WaitForName waits for one). Each name costs the server one watch: for more than a few
// hundred names of a resource a program may list, a Syncer of the
// resource, or its metadata (package dynamicsyncer), costs it less.
//
// A name that does not exist is synced as absent: it is added to the
// store when it is created. A name the server refuses to list or watch
// (403, 401; 404 when the resource is not served) does not hold the
// Syncer back: HasSynced, WaitForSync and OnSync wait for the others, its
// failures reach OnError as every failure does, WaitForName and NameErr
// return it as a *NameError, and its loop retries with the Syncer's
// backoff, so that a Role granted later starts it. Each name's WatchList
// is tried even with WithFieldSelector (whose selector is ANDed with the
// name's), unless WithoutWatchList: the server reads one key for it.
// WithSnapshot saves a file a name (the path, then ".<namespace>.<name>").
// WithNames cannot be combined with WithNamespace, WithNamespaces or a
// shard.
func WithNames(keys ...Key) Option {
	return func(c *config) {
		c.names = append(c.names[:0:0], keys...)
		c.namesSet = true
	}
}

// NameError is the failure of one name of a Syncer over names: the server
// refuses to list or watch it. errors.As finds it in what WaitForName and
// NameErr return; it unwraps to the server's error (apierrors.IsForbidden
// tells a 403).
type NameError struct {
	Key  Key
	Kind ErrorKind // KindForbidden, KindUnauthorized or KindNotFound
	Err  error
}

func (e *NameError) Error() string {
	return fmt.Sprintf("name %s: %s: %v", e.Key, e.Kind, e.Err)
}

func (e *NameError) Unwrap() error { return e.Err }

// refusal tells whether a failure of kind k of a name's loop means the
// server refuses that name: it then holds the Syncer back no longer.
func refusal(k ErrorKind) bool {
	return k == KindForbidden || k == KindUnauthorized || k == KindNotFound
}

// validateNames reports a WithNames that cannot work.
func (c *config) validateNames() []error {
	if !c.namesSet {
		return nil
	}
	var errs []error
	if c.namespace != "" || c.namespacesSet {
		errs = append(errs, errors.New("WithNames with WithNamespace or WithNamespaces: the names' keys give their namespaces"))
	}
	if c.shard != nil || c.shardErr != nil {
		errs = append(errs, errors.New("WithNames with a shard: a Syncer over names keeps those names, sharded or not"))
	}
	if err := c.checkNames(c.names); err != nil {
		errs = append(errs, fmt.Errorf("WithNames: %w", err))
	}
	return errs
}

// checkNames reports a key that cannot name an object of the resource.
func (c *config) checkNames(keys []Key) error {
	var errs []error
	for _, k := range keys {
		switch {
		case k.Name == "":
			errs = append(errs, fmt.Errorf("key %q has no name", k))
		case c.namespaced && k.Namespace == "":
			errs = append(errs, fmt.Errorf("key %q has no namespace, and %s is namespaced", k, c.resource))
		case !c.namespaced && k.Namespace != "":
			errs = append(errs, fmt.Errorf("key %q has a namespace, and %s is cluster-scoped", k, c.resource))
		case strings.Contains(k.Name, ","):
			errs = append(errs, fmt.Errorf("key %q: a name has no comma", k))
		}
	}
	return errors.Join(errs...)
}

// nameSelector is the field selector of the lane of name: the name's,
// and the Syncer's own selector if any.
func nameSelector(name, sel string) string {
	if sel == "" {
		return "metadata.name=" + name
	}
	return "metadata.name=" + name + "," + sel
}

// SetNames makes a Syncer made with WithNames keep the objects of keys,
// at any time, before Run too: a name added is synced by a loop of its
// own (handlers get OnResyncStarted unless a resync is under way, OnAdd
// of its object if it exists, then OnSync); a name removed has its loop
// stopped (SetNames waits for it) and its object taken out of the store,
// told to handlers as OnDelete(obj, DeletionInferred); its snapshot file,
// with WithSnapshot, is deleted. It fails for a Syncer made without
// WithNames, after Run returned, or with a key that cannot name an object
// of the resource.
func (s *Syncer[T]) SetNames(keys ...Key) error { return s.changeNames("SetNames", keys, nil, true) }

// AddNames adds keys to the names of a Syncer made with WithNames, as
// SetNames does; a name already there is left as it is.
func (s *Syncer[T]) AddNames(keys ...Key) error { return s.changeNames("AddNames", keys, nil, false) }

// RemoveNames removes keys from the names of a Syncer made with
// WithNames, as SetNames does; a key not there is ignored.
func (s *Syncer[T]) RemoveNames(keys ...Key) error {
	return s.changeNames("RemoveNames", nil, keys, false)
}

// changeNames adds add and, with exclusive, drops every other name, or
// drops remove.
func (s *Syncer[T]) changeNames(op string, add, remove []Key, exclusive bool) error {
	if !s.OverNames() {
		return fmt.Errorf("runtime: %s on the Syncer of %s, made without WithNames", op, s.res)
	}
	if err := s.cfg.checkNames(add); err != nil {
		return fmt.Errorf("runtime: %s: %w", op, err)
	}
	ls := s.lanes
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.stopped || s.closing.isClosed() {
		return fmt.Errorf("runtime: %s on the Syncer of %s, which has stopped", op, s.res)
	}
	for _, k := range remove {
		if l, ok := ls.byKey[k]; ok {
			delete(ls.byKey, k)
			s.dropLane(k, l)
		}
	}
	return s.setLanes(add, exclusive)
}

// OverNames tells whether the Syncer was made with WithNames.
func (s *Syncer[T]) OverNames() bool { return s.lanes != nil && s.cache.named }

// Names returns the keys a Syncer made with WithNames keeps now, sorted;
// nil for any other Syncer.
func (s *Syncer[T]) Names() []Key {
	if !s.OverNames() {
		return nil
	}
	s.lanes.mu.Lock()
	defer s.lanes.mu.Unlock()
	out := make([]Key, 0, len(s.lanes.byKey))
	for k := range s.lanes.byKey {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Key) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// ErrNotANameOfTheSyncer is what WaitForName and NameErr return for a key
// that is not among the Syncer's names (errors.Is), or of a Syncer made
// without WithNames.
var ErrNotANameOfTheSyncer = errors.New("not a name of the syncer")

// NameErr tells how the name k of a Syncer made with WithNames stands:
// nil once it has synced, a *NameError while the server refuses it (it is
// retried), ErrNotANameOfTheSyncer when it is not one of its names.
// While its first sync is under way it returns nil: WaitForName waits
// for it.
func (s *Syncer[T]) NameErr(k Key) error {
	_, err := s.cache.nameState(k)
	return err
}

// WaitForName waits until the name k of a Syncer made with WithNames has
// synced, its object in the store or known absent, and returns nil; or
// returns the *NameError of a name the server refuses, as soon as it is
// refused; or ErrNotANameOfTheSyncer (wrapped, naming k) for a key that
// is not, or no longer, one of its names; or ctx's error. Add the name
// first (AddNames); it waits on the store, not on the handlers.
func (s *Syncer[T]) WaitForName(ctx context.Context, k Key) error {
	if !s.OverNames() {
		return fmt.Errorf("runtime: WaitForName(%s) on the Syncer of %s, made without WithNames: %w", k, s.res, ErrNotANameOfTheSyncer)
	}
	for {
		var done bool
		var err error
		changed, _, _ := s.cache.check(func() (bool, error) {
			done, err = s.cache.nameStateLocked(k)
			return done || err != nil, nil
		})
		switch {
		case err != nil && errors.Is(err, ErrNotANameOfTheSyncer):
			return fmt.Errorf("runtime: WaitForName(%s) on the Syncer of %s: %w", k, s.res, err)
		case err != nil || done:
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("runtime: waiting for name %s of %s: %w", k, s.res, ctx.Err())
		}
	}
}

// nameState tells whether the part of name k has synced, and its error:
// a *NameError, or ErrNotANameOfTheSyncer.
func (c *cache[T]) nameState(k Key) (synced bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nameStateLocked(k)
}

// nameStateLocked is nameState with c.mu held.
func (c *cache[T]) nameStateLocked(k Key) (synced bool, err error) {
	p := c.parts[k]
	switch {
	case !c.named || p == nil:
		return false, ErrNotANameOfTheSyncer
	case p.synced:
		return true, nil
	case p.refused != nil:
		return false, p.refused
	}
	return false, nil
}

// countNames tells NamesMetrics the size of the set of names and how many
// the server refuses. c.mu is held.
func (c *cache[T]) countNames() {
	m, ok := c.cfg.metrics.(NamesMetrics)
	if !ok || !c.named {
		return
	}
	refused := 0
	for _, p := range c.parts {
		if p.refused != nil {
			refused++
		}
	}
	m.Names(len(c.parts), refused)
}

// refuse records that the server refuses p's name: p holds the Syncer's
// sync back no longer, and whoever waits for it learns why.
func (c *cache[T]) refuse(p *part, err *NameError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.synced {
		return // refused after it synced: it keeps its object and retries, as any Syncer does
	}
	first := p.refused == nil
	p.refused, p.inResync = err, false // the attempt's resync ends with nothing; the next attempt begins another
	if first {
		c.countNames()
	}
	c.wake()
	c.settle(false)
}

package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// A Syncer over several namespaces (WithNamespaces) keeps one store, one
// set of indexes and one set of handlers, and syncs each namespace with a
// sync loop of its own: its own requests (namespace-scoped, as RBAC
// limited to namespaces needs), resourceVersion, mode, retries, warm
// start and resync epoch (a part of the cache, parts.go), so that a relist
// of one namespace sweeps only that namespace's objects. Each loop is a
// Syncer of one namespace sharing the parent's cache (a lane): the sync
// loop's code is the same as a Syncer of one namespace runs.
//
// Handlers get OnResyncStarted when a namespace begins a resync while no
// other is in one, and OnSync once no namespace is in one and every
// namespace has synced: HasSynced and WaitForSync wait for every namespace.
// With WithSnapshot, each namespace has a snapshot file of its own (the
// path, a dot and the namespace), with its own resourceVersion, and
// starts warm from it.

// WithNamespaces makes the Syncer of a namespaced resource cover the
// namespaces given, each synced by requests of that namespace: for a
// program whose RBAC grants some namespaces only, as controller-runtime's
// cache.Options.DefaultNamespaces. SetNamespaces changes the set at any
// time. With no namespace given, the Syncer covers none and does not sync
// until SetNamespaces gives its first set: for a set chosen at run time
// (package nsselect chooses it by a label selector on Namespaces). For a
// cluster-scoped resource it is ignored, as WithNamespace is.
func WithNamespaces(namespaces ...string) Option {
	return func(c *config) {
		c.namespaces = append(c.namespaces[:0:0], namespaces...)
		c.namespacesSet = true
	}
}

// validateNamespaces reports a WithNamespaces that cannot work.
func (c *config) validateNamespaces() []error {
	if !c.namespacesSet {
		return nil
	}
	var errs []error
	if c.namespace != "" {
		errs = append(errs, fmt.Errorf("WithNamespace(%q) and WithNamespaces: give one", c.namespace))
	}
	if err := checkNamespaces(c.namespaces); err != nil {
		errs = append(errs, fmt.Errorf("WithNamespaces: %w", err))
	}
	return errs
}

func checkNamespaces(namespaces []string) error {
	for _, ns := range namespaces {
		if ns == "" {
			return errors.New(`namespace "" (every namespace is the Syncer without WithNamespaces)`)
		}
	}
	return nil
}

// lanes are the sync loops of a Syncer over several namespaces, or over
// names (names.go): one a namespace (keyed Key{Namespace: ns}) or one a
// name.
type lanes[T Object] struct {
	restCfg *rest.Config
	codec   *codec     // every lane's source's (newCodec)
	mu      sync.Mutex // serialises changes of the set
	byKey   map[Key]*lane[T]
	ctx     context.Context // Run's, once it began
	stopped bool            // Run returned: no lane starts
	running sync.WaitGroup
}

// lane is the sync loop of one namespace, or of one name.
type lane[T Object] struct {
	s      *Syncer[T]
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// makeLanes makes the lanes of the namespaces WithNamespaces gave, or of
// the names WithNames gave. They share one HTTP client, so one
// connection, unless WithHTTPClient gave one.
func (s *Syncer[T]) makeLanes(restCfg *rest.Config, cd *codec) error {
	if s.cfg.httpClient == nil {
		hc, err := rest.HTTPClientFor(restCfg)
		if err != nil {
			return err
		}
		s.cfg.httpClient = hc
	}
	s.lanes = &lanes[T]{restCfg: restCfg, codec: cd, byKey: map[Key]*lane[T]{}}
	s.cache.parts, s.cache.named = map[Key]*part{}, s.cfg.namesSet
	keys := s.cfg.names
	if !s.cfg.namesSet {
		keys = make([]Key, len(s.cfg.namespaces))
		for i, ns := range s.cfg.namespaces {
			keys[i] = Key{Namespace: ns}
		}
	}
	s.cache.waiting = len(keys) == 0 && !s.cfg.namesSet // a Syncer over no name has synced them all (runLanes)
	for _, k := range keys {
		if _, ok := s.lanes.byKey[k]; ok {
			continue
		}
		if err := s.addLane(k); err != nil {
			return err
		}
	}
	return nil
}

// addLane makes the lane of k (a namespace's, Name "", or a name's), and
// starts it if Run is under way. s.lanes.mu is held, or the Syncer not
// yet shared.
func (s *Syncer[T]) addLane(k Key) error {
	l := &Syncer[T]{cfg: s.cfg, res: s.res, cache: s.cache, due: ReasonInitial, parent: s}
	l.cfg.namespace, l.cfg.namespaces, l.cfg.namespacesSet = k.Namespace, nil, false
	l.cfg.names, l.cfg.namesSet = nil, false
	l.cfg.logger = s.cfg.logger.WithValues("namespace", k.Namespace)
	if k.Name != "" {
		l.cfg.logger = s.cfg.logger.WithValues("name", k.String())
		l.cfg.fieldSelector = nameSelector(k.Name, s.cfg.fieldSelector)
		l.cfg.oneName = true
		if l.cfg.watchList == 0 {
			l.cfg.watchList = 1 // see WithNames: a WatchList of one name is a read of one key
		}
	}
	if s.cfg.snapshotPath != "" {
		l.cfg.snapshotPath = laneSnapshot(s.cfg.snapshotPath, k)
	}
	src, err := newSource[T](s.lanes.restCfg, s.res, &l.cfg, s.lanes.codec)
	if err != nil {
		return err
	}
	l.src, src.report = src, l.report
	l.part = s.cache.addPart(k)
	ln := &lane[T]{s: l}
	s.lanes.byKey[k] = ln
	if s.lanes.ctx != nil {
		s.lanes.start(ln)
	}
	return nil
}

// laneSnapshot is the snapshot file of the lane of k of a Syncer whose
// WithSnapshot gave path: the path, a dot and the namespace; for a name,
// then a dot and the name (a namespace has no dot; a cluster-scoped
// object's file has two dots before its name).
func laneSnapshot(path string, k Key) string {
	if k.Name == "" {
		return path + "." + k.Namespace
	}
	return path + "." + k.Namespace + "." + k.Name
}

// start runs l's sync loop. ls.mu is held.
func (ls *lanes[T]) start(l *lane[T]) {
	ctx, cancel := context.WithCancel(ls.ctx)
	l.cancel, l.done = cancel, make(chan struct{})
	ls.running.Go(func() {
		defer close(l.done)
		l.err = l.s.loop(ctx)
	})
}

// runLanes runs every lane, and those added later, until ctx is done.
func (s *Syncer[T]) runLanes(ctx context.Context) error {
	ls := s.lanes
	ls.mu.Lock()
	ls.ctx = ctx
	for _, l := range ls.byKey {
		ls.start(l)
	}
	if s.cache.named && len(ls.byKey) == 0 {
		s.cache.known() // no name yet: synced, every one of none
	}
	ls.mu.Unlock()
	<-ctx.Done()
	ls.mu.Lock()
	ls.stopped = true
	ls.mu.Unlock()
	ls.running.Wait()
	var errs []error
	for _, l := range ls.byKey {
		errs = append(errs, l.err)
	}
	return errors.Join(errs...)
}

// SetNamespaces makes a Syncer made with WithNamespaces cover the
// namespaces given, at any time, before Run too. A namespace added is
// synced by a loop of its own: handlers get OnResyncStarted (unless a
// resync is under way), OnAdd for its objects, then OnSync once no
// namespace is in a resync; HasSynced stays true meanwhile, and Covers
// tells whether that namespace has synced. A namespace removed has its
// loop stopped (SetNamespaces waits for it) and its objects taken out of
// the store, each told to handlers as OnDelete(obj, DeletionInferred); its
// snapshot file, with WithSnapshot, is deleted. For a cluster-scoped
// resource it does nothing. It fails for a Syncer made without
// WithNamespaces, after Run returned, or with "" among the namespaces.
func (s *Syncer[T]) SetNamespaces(namespaces ...string) error {
	if !s.res.Namespaced {
		return nil
	}
	if s.lanes == nil {
		return fmt.Errorf("runtime: SetNamespaces on the Syncer of %s, made without WithNamespaces", s.res)
	}
	if err := checkNamespaces(namespaces); err != nil {
		return fmt.Errorf("runtime: SetNamespaces: %w", err)
	}
	ls := s.lanes
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.stopped || s.closing.isClosed() {
		return fmt.Errorf("runtime: SetNamespaces on the Syncer of %s, which has stopped", s.res)
	}
	if s.cache.named {
		return fmt.Errorf("runtime: SetNamespaces on the Syncer of %s, made with WithNames: use SetNames", s.res)
	}
	want := make([]Key, len(namespaces))
	for i, ns := range namespaces {
		want[i] = Key{Namespace: ns}
	}
	return s.setLanes(want, true)
}

// setLanes adds the lanes of keys want that are missing, and, with
// exclusive, drops those not in want. s.lanes.mu is held.
func (s *Syncer[T]) setLanes(want []Key, exclusive bool) error {
	ls := s.lanes
	wanted := make(map[Key]bool, len(want))
	for _, k := range want {
		wanted[k] = true
		if _, ok := ls.byKey[k]; !ok {
			if err := s.addLane(k); err != nil {
				return err
			}
		}
	}
	if exclusive {
		for k, l := range ls.byKey {
			if !wanted[k] {
				delete(ls.byKey, k)
				s.dropLane(k, l)
			}
		}
	}
	s.cache.known()
	return nil
}

// dropLane stops l, the lane of k, and takes its objects out of the
// store. s.lanes.mu is held.
func (s *Syncer[T]) dropLane(k Key, l *lane[T]) {
	if l.cancel != nil {
		l.cancel()
		<-l.done
	}
	s.cache.removePart(k)
	if p := l.s.cfg.snapshotPath; p != "" {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.cfg.logger.Error(err, "removing the snapshot of a part no longer covered", "resource", s.res.String(), "part", k.String(), "path", p)
		}
	}
}

// Namespaces returns the namespaces a Syncer made with WithNamespaces
// covers now, sorted; nil for any other Syncer (of one namespace, or all).
func (s *Syncer[T]) Namespaces() []string {
	if s.lanes == nil || s.cache.named {
		return nil
	}
	s.lanes.mu.Lock()
	defer s.lanes.mu.Unlock()
	out := make([]string, 0, len(s.lanes.byKey))
	for k := range s.lanes.byKey {
		out = append(out, k.Namespace)
	}
	slices.Sort(out)
	return out
}

// Covers tells whether the Syncer keeps the objects of namespace ns, and
// whether those have synced: a reader answers for a namespace outside the
// Syncer with an error, as controller-runtime's cache does for a namespace
// outside its own, not with an empty answer. ns "" asks for every
// namespace the Syncer covers. A cluster-scoped resource's Syncer covers
// every ns; one waiting for its first set of namespaces (WithNamespaces
// with none) may cover any, and has not synced it.
func (s *Syncer[T]) Covers(ns string) (covered, synced bool) {
	switch {
	case !s.res.Namespaced:
		return true, s.HasSynced()
	case s.lanes == nil:
		return ns == "" || s.cfg.namespace == "" || ns == s.cfg.namespace, s.HasSynced()
	}
	return s.cache.partSynced(ns)
}

// mode is the mode of the namespace that synced last.
func (ls *lanes[T]) mode() Mode {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	var last int64
	m := ModeUnknown
	for _, l := range ls.byKey {
		if t := l.s.progress.finished.Load(); t > last {
			last, m = t, Mode(l.s.mode.Load())
		}
	}
	return m
}

// progress sums the namespaces' progress: the objects received and
// estimated (no estimate if one namespace has none), from the first start
// to the last finish (none while a namespace is under way).
func (ls *lanes[T]) progress() Progress {
	ls.mu.Lock()
	lanes := make([]*Syncer[T], 0, len(ls.byKey))
	for _, l := range ls.byKey {
		lanes = append(lanes, l.s)
	}
	ls.mu.Unlock()
	p := Progress{Mode: ls.mode()}
	finished := true
	for _, l := range lanes {
		lp := l.Progress()
		p.Received += lp.Received
		if lp.Estimate < 0 || p.Estimate < 0 {
			p.Estimate = -1
		} else {
			p.Estimate += lp.Estimate
		}
		if !lp.Started.IsZero() && (p.Started.IsZero() || lp.Started.Before(p.Started)) {
			p.Started = lp.Started
		}
		if lp.Finished.IsZero() {
			finished = false
		} else if lp.Finished.After(p.Finished) {
			p.Finished = lp.Finished
		}
	}
	if !finished || len(lanes) == 0 {
		p.Finished = time.Time{}
	}
	if p.Started.IsZero() {
		p.Estimate = -1
	}
	return p
}

// release drops the lanes, and their loops' state, once Run returned.
func (ls *lanes[T]) release() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.byKey = map[Key]*lane[T]{}
	ls.stopped = true
}

// NamespacesOf tells which namespaces opts limit a Syncer to: those of
// WithNamespace or WithNamespaces, limited true; limited false for every
// namespace.
func NamespacesOf(opts ...Option) (namespaces []string, limited bool) {
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	switch {
	case c.namespacesSet:
		return slices.Clone(c.namespaces), true
	case c.namespace != "":
		return []string{c.namespace}, true
	}
	return nil, false
}

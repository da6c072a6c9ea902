package runtime

import (
	"context"

	"k8s.io/apimachinery/pkg/watch"
)

// warmMatch matches the items of a warm resync's metadata-only LIST with
// the snapshot's objects (or, from the store, the store's) page by page,
// on a goroutine of its own while the next page is under way: the
// unchanged objects are restored, handlers get their OnAdd, and what
// changed is noted as pending. Once the LIST is in, only its last page is
// left to match (issue 44: matching and restoring 20,000 objects after the
// LIST was a third of a warm start's time).
type warmMatch[T Object] struct {
	s     *Syncer[T]
	live  bool
	pages chan []listed
	done  chan struct{}

	// Set by the goroutine; read once done is closed (listed).
	snap     loaded[T]
	received bool // the snapshot came from loading
	usable   bool // a snapshot to use (always, from the store)
	used     bool // an item was matched with the snapshot: part of it is restored or owed
	pending  map[Key]string
	kept     int
	gone     int
	unsaved  int
}

// matchWhileListing starts matching: from the snapshot loading, or, with
// loading nil, from the store.
func (s *Syncer[T]) matchWhileListing(ctx context.Context, loading <-chan loaded[T]) *warmMatch[T] {
	m := &warmMatch[T]{s: s, live: loading == nil, pages: make(chan []listed, 4), done: make(chan struct{}), pending: map[Key]string{}}
	go m.run(ctx, loading)
	return m
}

// page hands the goroutine a page of items.
func (m *warmMatch[T]) page(items []listed) { m.pages <- items }

// listed tells that the LIST is over, and waits for every page handed to
// be matched.
func (m *warmMatch[T]) listed() {
	close(m.pages)
	<-m.done
}

// giveBack returns what the next warm attempt reads the snapshot from: the
// snapshot this match took (what is left of it), or loading if it took
// none.
func (m *warmMatch[T]) giveBack(loading <-chan loaded[T]) <-chan loaded[T] {
	if !m.received {
		return loading
	}
	again := make(chan loaded[T], 1)
	again <- m.snap
	return again
}

func (m *warmMatch[T]) run(ctx context.Context, loading <-chan loaded[T]) {
	defer close(m.done)
	drain := func() {
		for range m.pages {
		}
	}
	if m.live {
		m.usable = true
	} else {
		select {
		case m.snap = <-loading:
			m.received = true
		case <-ctx.Done():
			drain()
			return
		}
		if m.snap.objs == nil {
			drain()
			return
		}
		m.usable = true
	}
	for items := range m.pages {
		m.match(items)
	}
}

// had returns what the Syncer holds of k: the snapshot's object (taken
// out of it) or the store's.
func (m *warmMatch[T]) had(k Key) (sized[T], bool) {
	if m.live {
		e, ok := m.s.cache.store.get(k)
		return sized[T]{e.obj, e.bytes}, ok
	}
	o, ok := m.snap.objs[k]
	delete(m.snap.objs, k)
	return o, ok
}

// match matches items: an object whose UID and resourceVersion are the
// listed ones is restored as is; any other is pending, the snapshot's
// object owed (told gone unless the server still has an object of its UID).
func (m *warmMatch[T]) match(items []listed) {
	s := m.s
	m.used = m.used || !m.live && len(items) > 0
	for _, l := range items {
		was, ok := m.had(l.key)
		old := was.obj
		// unsaved counts the listed objects the snapshot lacks though
		// their state is not newer than it: left out of it because they
		// could not be written (see saveSnapshot). The watch from the
		// snapshot's resourceVersion has no event of them to deliver:
		// they are fetched.
		if !ok && !m.live && m.snap.rv != "" && compareRV(l.rv, m.snap.rv) <= 0 {
			m.unsaved++
		}
		switch {
		case ok && old.GetUID() == l.uid && old.GetResourceVersion() == l.rv:
			s.cfg.metrics.EventReceived(watch.Added)
			s.cache.restore(old, was.bytes)
			m.kept++
			continue
		case ok && !m.live:
			s.cache.owe(old)
			if old.GetUID() != l.uid {
				s.cache.vanished(l.key)
				m.gone++
			}
		}
		m.pending[l.key] = l.rv
	}
}

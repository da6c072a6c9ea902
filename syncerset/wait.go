package syncerset

import (
	"context"
	"sync"
)

// WaitForSync blocks until every syncer of the set has synced and its
// handlers have received the snapshot, or until ctx is done. Then it
// returns a *NotSyncedError naming each syncer that has not synced and
// why. Call Start first: syncers that do not run never sync.
func (s *Set) WaitForSync(ctx context.Context) error {
	members := s.snapshot()
	var wg sync.WaitGroup
	for _, m := range members {
		wg.Go(func() { _ = m.syncer.WaitForSync(ctx) })
	}
	wg.Wait()
	if ctx.Err() == nil {
		return nil
	}
	// ctx ended: some syncers may have synced in the meantime anyway.
	var missing []NotSynced
	for _, m := range members {
		if n, ok := notSynced(m, ctx); !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &NotSyncedError{Total: len(members), Resources: missing, Cause: ctx.Err()}
}

// HasSynced tells whether every syncer of the set has synced.
func (s *Set) HasSynced() bool {
	for _, m := range s.snapshot() {
		if !m.syncer.HasSynced() {
			return false
		}
	}
	return true
}

// notSynced tells whether m has synced, handlers included, and if not why.
func notSynced(m *member, ctx context.Context) (NotSynced, bool) {
	n := NotSynced{Resource: m.name, Err: m.syncer.LastError(), Progress: m.syncer.Progress()}
	if !m.syncer.HasSynced() {
		return n, false
	}
	// The store synced; are the handlers there too? A done context makes
	// WaitForSync return at once if they are not.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.syncer.WaitForSync(done); err != nil {
		n.HandlersBehind = true
		return n, false
	}
	return n, true
}

package runtime

import (
	"sync"
	"time"
)

// Mode is how a Syncer gets the initial state.
type Mode int32

const (
	// ModeUnknown: no sync has completed yet.
	ModeUnknown Mode = iota
	// ModeWatchList: the initial state is streamed as watch events.
	ModeWatchList
	// ModeList: paginated LIST, then WATCH.
	ModeList
	// ModeWarm: the state saved by a previous run (WithSnapshot), brought
	// up to date with a metadata-only LIST and the changes since.
	ModeWarm
)

// String returns "watchlist", "list", "warm" or "unknown".
func (m Mode) String() string {
	switch m {
	case ModeWatchList:
		return "watchlist"
	case ModeList:
		return "list"
	case ModeWarm:
		return "warm"
	}
	return "unknown"
}

// modeMemory remembers, per server and resource, that WatchList failed and
// when to try it again. It is shared by every Syncer of the process so that
// a second Syncer for the same resource does not probe again.
type modeMemory struct {
	mu    sync.Mutex
	until map[string]time.Time // key -> time at which WatchList is tried again
}

var modes = &modeMemory{until: map[string]time.Time{}}

// choose returns the mode to try now for key.
func (m *modeMemory) choose(key string, now time.Time) Mode {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.until[key]; ok && now.Before(t) {
		return ModeList
	}
	return ModeWatchList
}

// refuse records that WatchList does not work for key until now+interval.
func (m *modeMemory) refuse(key string, now time.Time, interval time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.until[key] = now.Add(interval)
}

// accept records that WatchList works for key.
func (m *modeMemory) accept(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.until, key)
}

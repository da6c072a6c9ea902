package runtime_test

import (
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
)

// resyncs counts the resync period's updates per object, and anything else.
type resyncs struct {
	mu     sync.Mutex
	rounds map[string]int // name -> OnUpdate(obj, obj) calls
	other  []string       // calls that are not such an update, or whose old is not new
}

func (r *resyncs) funcs() runtime.HandlerFuncs[*corev1.ConfigMap] {
	return runtime.HandlerFuncs[*corev1.ConfigMap]{
		UpdateFunc: func(old, cm *corev1.ConfigMap) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if old != cm || old.ResourceVersion != cm.ResourceVersion {
				r.other = append(r.other, "update:"+cm.Name+"@"+cm.ResourceVersion)
				return
			}
			r.rounds[cm.Name]++
		},
		DeleteFunc: func(cm *corev1.ConfigMap, _ runtime.Deletion) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.other = append(r.other, "delete:"+cm.Name)
		},
	}
}

// least returns the fewest resyncs any of names got.
func (r *resyncs) least(names ...string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := -1
	for _, name := range names {
		if c := r.rounds[name]; n < 0 || c < n {
			n = c
		}
	}
	return n
}

// WithResyncPeriod re-delivers every stored object to every handler as
// OnUpdate(obj, obj), the stored object itself, again and again; not
// before the first sync. WithHandlerResyncPeriod overrides the period for
// one handler, 0 turning it off.
func TestResyncPeriodRedeliversTheStore(t *testing.T) {
	s, d := runtime.NewDriver[*corev1.ConfigMap](configMaps, runtime.WithResyncPeriod(20*time.Millisecond))
	every := &resyncs{rounds: map[string]int{}}
	never := &resyncs{rounds: map[string]int{}}
	s.AddHandler(every.funcs())
	s.AddHandler(never.funcs(), runtime.WithHandlerResyncPeriod(0))
	d.Add(namedCM("a", "1"), namedCM("b", "2"))
	time.Sleep(100 * time.Millisecond) // five periods before the sync: nothing may come (a wait, not a synchronisation)
	if n := every.least("a", "b"); n != 0 {
		t.Errorf("%d resyncs before the first sync", n)
	}
	d.Sync()
	eventually(t, 10*time.Second, "three resyncs of every object", func() bool { return every.least("a", "b") >= 3 })
	d.Update(namedCM("a", "3"))
	eventually(t, 10*time.Second, "a resync of a's new state", func() bool {
		a, _ := s.Store().Get("ns", "a")
		return a.ResourceVersion == "3" && every.least("a") >= 5
	})
	every.mu.Lock()
	other := every.other
	every.mu.Unlock()
	if len(other) != 1 || other[0] != "update:a@3" {
		t.Errorf("calls besides resyncs: %v, want only a's update to 3", other)
	}
	if n := never.least("a", "b"); n != 0 {
		t.Errorf("a handler with WithHandlerResyncPeriod(0) got %d resyncs", n)
	}
}

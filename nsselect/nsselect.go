package nsselect

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

// Namespaces is the Resource of core/v1 Namespaces.
var Namespaces = runtime.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace",
	NewList: func() kruntime.Object { return &corev1.NamespaceList{} }}

// Follower is what a Selector sets the namespaces of: a
// *runtime.Syncer[T] made with runtime.WithNamespaces.
type Follower interface {
	SetNamespaces(namespaces ...string) error
}

// Selector is the set of namespaces whose labels match a selector, as it
// changes. Its methods are safe for concurrent use.
type Selector struct {
	syncer *runtime.Syncer[*corev1.Namespace]

	mu        sync.Mutex
	chosen    map[string]bool
	synced    bool // the chosen set is the server's
	inResync  bool // the Namespaces' syncer is resyncing: the set is told at its end
	followers []Follower
}

// New returns the Selector of the namespaces whose labels match selector
// (a label selector, e.g. "team=payments,tier!=test"), watched by a syncer
// of Namespaces that it adds to set with opts (e.g. runtime.WithLogger).
// A selector that does not parse fails here.
func New(set *syncerset.Set, selector string, opts ...runtime.Option) (*Selector, error) {
	if _, err := labels.Parse(selector); err != nil {
		return nil, fmt.Errorf("nsselect.New(%q): %w", selector, err)
	}
	opts = append([]runtime.Option{runtime.WithLabelSelector(selector), runtime.WithStripManagedFields()}, opts...)
	s, err := syncerset.Add[*corev1.Namespace](set, Namespaces, opts...)
	if err != nil {
		return nil, fmt.Errorf("nsselect.New(%q): %w", selector, err)
	}
	sel := &Selector{syncer: s, chosen: map[string]bool{}}
	s.AddHandler(runtime.HandlerFuncs[*corev1.Namespace]{
		ResyncStartedFunc: func() { sel.mu.Lock(); sel.inResync = true; sel.mu.Unlock() },
		AddFunc:           func(ns *corev1.Namespace) { sel.change(ns.Name, true) },
		DeleteFunc:        func(ns *corev1.Namespace, _ runtime.Deletion) { sel.change(ns.Name, false) },
		SyncFunc:          sel.sync,
	}, runtime.WithHandlerName("nsselect"))
	return sel, nil
}

// Syncer returns the syncer of the Namespaces the Selector chose.
func (sel *Selector) Syncer() *runtime.Syncer[*corev1.Namespace] { return sel.syncer }

// Follow makes f cover the namespaces the Selector chooses, now and as
// they change. f is a syncer made with runtime.WithNamespaces() and no
// namespace, so that it does not sync before the Selector has: once the
// Namespaces have synced, f gets its first set, and its objects sync. A
// follower whose SetNamespaces fails (it was closed) is dropped.
func (sel *Selector) Follow(f Follower) error {
	sel.mu.Lock()
	defer sel.mu.Unlock()
	if sel.synced {
		if err := f.SetNamespaces(sel.namespaces()...); err != nil {
			return err
		}
	}
	sel.followers = append(sel.followers, f)
	return nil
}

// Chosen returns the namespaces chosen now, sorted; nil before the
// Namespaces have synced.
func (sel *Selector) Chosen() []string {
	sel.mu.Lock()
	defer sel.mu.Unlock()
	if !sel.synced {
		return nil
	}
	return sel.namespaces()
}

// namespaces returns the chosen set, sorted. sel.mu is held.
func (sel *Selector) namespaces() []string {
	return slices.Sorted(maps.Keys(sel.chosen))
}

// change notes that namespace ns is chosen or no longer, and tells the
// followers unless a resync is under way: they get its outcome at its end.
func (sel *Selector) change(ns string, chosen bool) {
	sel.mu.Lock()
	defer sel.mu.Unlock()
	if chosen {
		sel.chosen[ns] = true
	} else {
		delete(sel.chosen, ns)
	}
	if sel.synced && !sel.inResync {
		sel.tell()
	}
}

// sync ends a resync of the Namespaces: the followers get the set.
func (sel *Selector) sync() {
	sel.mu.Lock()
	defer sel.mu.Unlock()
	sel.synced, sel.inResync = true, false
	sel.tell()
}

// tell gives each follower the chosen set. sel.mu is held: one change is
// told to every follower before the next.
func (sel *Selector) tell() {
	nss := sel.namespaces()
	kept := sel.followers[:0]
	for _, f := range sel.followers {
		if f.SetNamespaces(nss...) == nil {
			kept = append(kept, f)
		}
	}
	clear(sel.followers[len(kept):])
	sel.followers = kept
}

package runtime

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func cmIn(ns, name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

// The parts of a syncer over two namespaces: each resync sweeps only its
// namespace's objects, also when the other namespace's resync is under way
// and has not seen its objects again yet (a sweep by epoch alone would take
// them); handlers get one OnResyncStarted and one OnSync for overlapping
// resyncs, OnSync only once both namespaces synced, and a namespace removed
// is told gone, object by object.
func TestResyncOfOneNamespaceSweepsOnlyItsObjects(t *testing.T) {
	s, d := NewDriver[*corev1.ConfigMap](Resource{Namespaced: true}, WithNamespaces("a", "b"))
	c := s.cache
	c.parts = map[Key]*part{}
	a, b := c.addPart(Key{Namespace: "a"}), c.addPart(Key{Namespace: "b"})
	var l log
	s.AddHandler(l.handler())
	take := func(step, want string) {
		t.Helper()
		d.Wait()
		if got := l.take(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", step, got, want)
		}
	}

	c.beginResync(a)
	c.upsert(cmIn("a", "x", "1"))
	c.upsert(cmIn("a", "y", "2"))
	c.finishResync(a, "2")
	if s.HasSynced() {
		t.Error("synced before b")
	}
	c.beginResync(b)
	c.upsert(cmIn("b", "x", "3"))
	c.finishResync(b, "3")
	take("first sync", "resync, add x@1, add y@2, add x@3, sync")
	if !s.HasSynced() {
		t.Fatal("not synced once both namespaces are")
	}

	c.beginResync(a) // a relists; b's x was last seen in an older epoch
	c.upsert(cmIn("a", "x", "1"))
	c.finishResync(a, "4")
	take("a relisted", "resync, delete y@2, sync")

	c.beginResync(a) // both relist; a finishes before b saw its x again
	c.beginResync(b)
	c.upsert(cmIn("a", "x", "1"))
	c.finishResync(a, "5")
	if _, ok := s.Store().Get("b", "x"); !ok {
		t.Fatal("a's sweep took b's object")
	}
	c.upsert(cmIn("b", "x", "3"))
	c.finishResync(b, "5")
	take("both relisted", "resync, sync")
	if objs, rv, ok := c.snapshot(a); !ok || rv != "5" || len(objs) != 1 || objs[0].Namespace != "a" {
		t.Errorf("a's snapshot: %v at %s (%v), want a/x", objs, rv, ok)
	}

	c.removePart(Key{Namespace: "b"})
	take("b removed", "delete x@3")
	if s.Store().Len() != 1 {
		t.Errorf("store holds %v, want a/x", s.Store().Keys())
	}
	c.upsert(cmIn("b", "late", "9")) // an event of b's stopped loop
	if _, ok := s.Store().Get("b", "late"); ok {
		t.Error("an object of a namespace no longer covered was stored")
	}
}

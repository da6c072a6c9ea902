package handlerqueue

import (
	"errors"
	"fmt"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func cm(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

type key struct{ namespace, name string }

func newTestQueue(reported func(int)) *Queue[key, *corev1.ConfigMap] {
	return New(func(o *corev1.ConfigMap) key { return key{o.Namespace, o.Name} }, reported)
}

// drain returns what q holds, as short strings.
func drain(q *Queue[key, *corev1.ConfigMap]) []string {
	var got []string
	for n, ok := q.Next(); ok; n, ok = q.Next() {
		switch {
		case n.Err != nil:
			got = append(got, "error")
		case n.Kind == ResyncStarted:
			got = append(got, "resync")
		case n.Kind == Synced:
			got = append(got, "sync")
		default:
			got = append(got, n.Cur.Name+"@"+n.Cur.ResourceVersion)
		}
	}
	return got
}

// Synced is a barrier: it comes after every object queued before it, and
// only once for resyncs that changed nothing meanwhile.
func TestSyncedIsABarrier(t *testing.T) {
	q := newTestQueue(nil)
	now := time.Now()
	var none *corev1.ConfigMap
	q.Barrier(ResyncStarted, now)
	q.Change(none, false, cm("a", "1"), false, false, false, now)
	q.Barrier(Synced, now)
	q.Barrier(ResyncStarted, now)
	q.Barrier(Synced, now) // an empty resync while the handler is behind
	q.Barrier(Synced, now)
	q.Change(none, false, cm("a", "2"), false, false, false, now) // folded before the sync
	if got := fmt.Sprint(drain(q)); got != "[resync a@2 sync]" {
		t.Fatalf("got %v", got)
	}
}

// A resync under way never holds back the Synced of one that ended.
func TestSyncedIsNotHeldBackByTheNextResync(t *testing.T) {
	q := newTestQueue(nil)
	now := time.Now()
	for range 3 {
		q.Barrier(ResyncStarted, now)
		q.Barrier(Synced, now)
	}
	q.Barrier(ResyncStarted, now)
	if got := fmt.Sprint(drain(q)); got != "[resync sync resync]" {
		t.Fatalf("got %v", got)
	}
}

// A blocked handler's queue holds a bounded number of barriers however
// many resyncs come, also when the object between two of them leaves the
// queue (added and deleted before the handler saw it); what it gets once
// released is still well formed: resync, then sync.
func TestBlockedHandlersBarriersStayBounded(t *testing.T) {
	q := newTestQueue(nil)
	now := time.Now()
	var none *corev1.ConfigMap
	a, b := cm("a", "1"), cm("b", "1")
	q.Change(a, true, a, false, false, false, now) // behind on 2 objects
	q.Change(b, true, b, false, false, false, now)
	for i := range 1000 {
		x := cm(fmt.Sprint("x", i), "1")
		q.Barrier(ResyncStarted, now)
		q.Change(none, false, x, false, false, false, now)
		q.Barrier(Synced, now)
		q.Change(x, true, x, true, true, false, now) // gone again
		if n := q.Len(); n > 5 {
			t.Fatalf("after %d resyncs %d calls pending for a handler behind on 2 objects", i+1, n)
		}
	}
	if got := fmt.Sprint(drain(q)); got != "[a@1 b@1 resync sync]" {
		t.Fatalf("got %v", got)
	}
}

// Depth reports are made under the queue's lock, in the order of the
// changes: once drained, the last one says 0.
func TestDepthReportsFollowChanges(t *testing.T) {
	var reports []int
	q := newTestQueue(func(n int) { reports = append(reports, n) })
	now := time.Now()
	var none *corev1.ConfigMap
	q.Change(none, false, cm("a", "1"), false, false, false, now)
	q.Change(none, false, cm("b", "1"), false, false, false, now)
	q.Change(none, false, cm("b", "2"), true, false, false, now) // never seen: gone
	q.Fail(errors.New("x"))
	drain(q)
	if fmt.Sprint(reports) != "[1 2 1 2 1 0]" {
		t.Fatalf("depth reports %v", reports)
	}
}

// A queue holds a node per object for a handler that is behind (or added
// before the sync): keep it in the 48-byte size class.
func TestNodeIsSmall(t *testing.T) {
	if n := unsafe.Sizeof(node[*corev1.ConfigMap]{}); n > 48 {
		t.Errorf("queue node is %d bytes, want at most 48", n)
	}
}

// Delivered nodes are reused: a handler that keeps up costs no allocation
// per event, and a queue keeps at most maxFreeNodes for reuse, holding no
// object.
func TestNodesAreReused(t *testing.T) {
	q := newTestQueue(nil)
	obj, now := cm("a", "1"), time.Now()
	if allocs := testing.AllocsPerRun(100, func() {
		q.Change(nil, false, obj, false, false, false, now)
		if _, ok := q.Next(); !ok {
			t.Fatal("nothing queued")
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per event", allocs)
	}
	for i := range 2 * maxFreeNodes {
		q.Change(nil, false, cm(fmt.Sprint("o", i), "1"), false, false, false, now)
	}
	for range 2 * maxFreeNodes {
		if _, ok := q.Next(); !ok {
			t.Fatal("lost a node")
		}
	}
	n := 0
	for f := q.free; f != nil; f = f.next {
		if f.cur != nil || f.old != nil {
			t.Fatal("a free node holds an object")
		}
		n++
	}
	if n != maxFreeNodes || q.nfree != n {
		t.Errorf("%d free nodes (counted %d), want %d", n, q.nfree, maxFreeNodes)
	}
}

// A call is Listed only while every change folded into it came from a
// list: a live change of an object whose listed add waits makes the add
// live, and a listed change never makes a live call listed.
func TestListedFoldsToLive(t *testing.T) {
	q := newTestQueue(nil)
	now := time.Now()
	var none *corev1.ConfigMap
	q.Change(none, false, cm("a", "1"), false, false, true, now) // listed add
	q.Change(none, false, cm("b", "1"), false, false, true, now) // listed add, then a live update
	q.Change(cm("b", "1"), true, cm("b", "2"), false, false, false, now)
	q.Change(none, false, cm("c", "1"), false, false, false, now) // live add, then listed again
	q.Change(cm("c", "1"), true, cm("c", "1"), false, false, true, now)
	want := map[string]bool{"a": true, "b": false, "c": false}
	for n, ok := q.Next(); ok; n, ok = q.Next() {
		if n.Listed != want[n.Cur.Name] {
			t.Errorf("%s@%s: Listed %v, want %v", n.Cur.Name, n.Cur.ResourceVersion, n.Listed, want[n.Cur.Name])
		}
		delete(want, n.Cur.Name)
	}
	if len(want) != 0 {
		t.Errorf("calls missing for %v", want)
	}
}

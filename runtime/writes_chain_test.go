package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// blocks tells whether read, given a context that ends after d, waited
// for it to end: it returned its error, or another the wait gave.
func blocks(t *testing.T, d time.Duration, read func(ctx context.Context) error) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	err := read(ctx)
	var stale *runtime.StaleReadError
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &stale)
}

// Issue 42, defect 1. The program writes a three times before the store
// has seen the second: a@20 moves it from parent p to q, a@30 from q to r.
// Once the store has a@20, a List of q's children (by label or by index)
// still waits, for a@30: a@20 put a under q, and the program's own later
// write took it out again. Each write's state before is the answer to the
// program's previous write of a, not what the store held.
func TestWritesAChainOfWritesToOneObject(t *testing.T) {
	for name, q := range map[string]runtime.Selection{
		"label": {Namespace: "ns", Labels: labels.SelectorFromSet(labels.Set{"parent": "q"})},
		"index": {Indexes: map[string]string{"parent": "q"}},
	} {
		t.Run(name, func(t *testing.T) {
			s, d, _ := synced(t, child("a", "10", "p"))
			w := runtime.NewWrites(s, 5*time.Second)
			w.Wrote(child("a", "20", "q"))
			w.Wrote(child("a", "30", "r"))
			d.Update(child("a", "20", "q"))
			var got []*corev1.ConfigMap
			if !blocks(t, 200*time.Millisecond, func(ctx context.Context) (err error) {
				got, err = w.List(ctx, q)
				return err
			}) {
				t.Fatalf("List of q's children with the store at a@20 returned %d objects at once; want it to wait for the program's a@30", len(got))
			}
			d.Update(child("a", "30", "r"))
			objs, err := w.List(context.Background(), q)
			if err != nil || len(objs) != 0 {
				t.Fatalf("List of q's children after a@30: %d objects, %v; want none", len(objs), err)
			}
			if n := w.Pending(); n != 0 {
				t.Fatalf("%d writes pending once the store saw the chain's last, want 0", n)
			}
		})
	}
}

// Issue 42, defect 2. The program creates a (answer a@20) and deletes it
// while the store has not seen a at all; then makes more writes than the
// log prunes at. The store lacking a does not make the deletion seen:
// once the store gets a@20, a Get waits until it has seen a go, and the
// prune never drops the deletion.
func TestWritesADeletionBeforeItsCreationIsSeen(t *testing.T) {
	s, d, _ := synced(t, child("b", "11", "p"))
	w := runtime.NewWrites(s, 5*time.Second)
	a := child("a", "20", "p")
	w.Wrote(a)
	w.Deleted(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}) // by name: the UID is the create's
	if _, ok, err := w.Get(context.Background(), "ns", "b"); err != nil || !ok {
		t.Fatalf("Get of b: %v, %v", ok, err)
	}
	for i := range 100 { // past the log's prune threshold; these the store has seen (it is at 11 without them)
		w.Wrote(child(fmt.Sprintf("x%d", i), "11", "p"))
	}
	if n := w.Pending(); n < 2 {
		t.Fatalf("%d writes pending after the log pruned itself; want a's create and deletion kept", n)
	}
	d.Add(a)
	var held *corev1.ConfigMap
	if !blocks(t, 200*time.Millisecond, func(ctx context.Context) (err error) {
		var ok bool
		held, ok, err = w.Get(ctx, "ns", "a")
		if ok && err == nil {
			return nil
		}
		return err
	}) {
		t.Fatalf("Get of a with the store at a@20 returned %v at once: the object the program deleted", held)
	}
	d.Delete(a)
	if got, ok, err := w.Get(context.Background(), "ns", "a"); err != nil || ok {
		t.Fatalf("Get of a after its deletion: %v, %v, %v; want none", got, ok, err)
	}
}

// Issue 42, defect 4, on the store: a deletion's mark counts as seen only
// where the object is kept (finalizers, or a grace period); a Pod with
// none is marked, then deleted, and a read waits for the second.
func TestWritesAMarkNotKeptIsNotTheDeletion(t *testing.T) {
	grace := int64(30)
	for _, tc := range []struct {
		name string
		mark func(*corev1.ConfigMap)
		kept bool
	}{
		{"no finalizer, no grace", func(*corev1.ConfigMap) {}, false},
		{"finalizer", func(o *corev1.ConfigMap) { o.Finalizers = []string{"keep"} }, true},
		{"grace period", func(o *corev1.ConfigMap) { o.DeletionGracePeriodSeconds = &grace }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, d, _ := synced(t, child("a", "10", "p"))
			w := runtime.NewWrites(s, 5*time.Second)
			w.Deleted(child("a", "10", "p"))
			marked := child("a", "11", "p")
			marked.DeletionTimestamp = &metav1.Time{Time: time.Now()}
			tc.mark(marked)
			d.Update(marked)
			waited := blocks(t, 200*time.Millisecond, func(ctx context.Context) error { return w.WaitForGet(ctx, "ns", "a") })
			if waited == tc.kept {
				t.Fatalf("Get with a marked (kept %t) waited %t", tc.kept, waited)
			}
			d.Delete(marked)
			if _, ok, err := w.Get(context.Background(), "ns", "a"); err != nil || ok {
				t.Fatalf("Get after the deletion: %v, %v", ok, err)
			}
		})
	}
}

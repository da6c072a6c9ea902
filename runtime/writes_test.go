package runtime_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// waits records Metrics.ReadWaited calls.
type waits struct {
	runtime.NopMetrics
	mu    sync.Mutex
	calls []string
}

func (w *waits) ReadWaited(op runtime.WaitOp, result runtime.WaitResult, _ time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, string(op)+" "+string(result))
}

func (w *waits) count(call string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.calls {
		if c == call {
			n++
		}
	}
	return n
}

func child(name, rv, parent string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv,
		UID: types.UID("uid-" + name), Labels: map[string]string{"parent": parent}}}
}

// synced returns a driven syncer holding objs, synced, and its metrics.
func synced(t *testing.T, objs ...*corev1.ConfigMap) (*runtime.Syncer[*corev1.ConfigMap], *runtime.Driver[*corev1.ConfigMap], *waits) {
	t.Helper()
	m := &waits{}
	s, d := runtime.NewDriver[*corev1.ConfigMap](runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true},
		runtime.WithMetrics(m), runtime.WithIndex("parent", func(cm *corev1.ConfigMap) []string { return []string{cm.Labels["parent"]} }))
	d.Add(objs...)
	d.Sync()
	return s, d, m
}

// returns runs read in a goroutine and returns a channel that gets its
// error once it returned.
func returns(read func() error) <-chan error {
	done := make(chan error, 1)
	go func() { done <- read() }()
	return done
}

// A read of one object waits for the program's writes of that object, and
// only those: a Get of another object, or a List of a selection that
// picks it neither before nor after, does not wait; a List that picks it
// returns the written state, never the one before.
func TestWritesWaitPerObject(t *testing.T) {
	s, d, m := synced(t, child("a", "10", "p"), child("b", "11", "q"))
	if got := s.LastSyncResourceVersion(); got != "11" {
		t.Fatalf("LastSyncResourceVersion = %q, want 11", got)
	}
	w := runtime.NewWrites(s, 5*time.Second)
	w.Wrote(child("a", "20", "p")) // the server's answer; the store has not seen it
	ctx := context.Background()

	if b, ok, err := w.Get(ctx, "ns", "b"); err != nil || !ok || b.ResourceVersion != "11" {
		t.Fatalf("Get of another object: %v, %v, %v", b, ok, err)
	}
	other, err := w.List(ctx, runtime.Selection{Namespace: "ns", Labels: labels.SelectorFromSet(labels.Set{"parent": "q"})})
	if err != nil || len(other) != 1 {
		t.Fatalf("List of another parent's children: %v, %v", other, err)
	}
	if got := m.count("get observed") + m.count("list observed"); got != 2 {
		t.Fatalf("%d reads counted as observed, want 2: %v", got, m.calls)
	}

	get := make(chan *corev1.ConfigMap, 1)
	getDone := returns(func() error {
		a, _, err := w.Get(ctx, "ns", "a")
		get <- a
		return err
	})
	list := make(chan []*corev1.ConfigMap, 1)
	listDone := returns(func() error {
		objs, err := w.List(ctx, runtime.Selection{Indexes: map[string]string{"parent": "p"}})
		list <- objs
		return err
	})
	d.Update(child("a", "20", "p"))
	for _, done := range []<-chan error{getDone, listDone} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if a := <-get; a.ResourceVersion != "20" {
		t.Fatalf("Get after the write read resourceVersion %s, want 20", a.ResourceVersion)
	}
	if objs := <-list; len(objs) != 1 || objs[0].ResourceVersion != "20" {
		t.Fatalf("List after the write read %v, want a@20", objs)
	}
	if n := w.Pending(); n != 0 {
		t.Fatalf("%d writes pending after the store saw them, want 0", n)
	}
}

// A write that moves an object out of a selection is waited for by a List
// of that selection (it picked the object before), not only of the new one.
func TestWritesListWaitsForWhatLeftTheSelection(t *testing.T) {
	s, d, _ := synced(t, child("a", "10", "p"))
	w := runtime.NewWrites(s, 5*time.Second)
	w.Wrote(child("a", "20", "q"))
	got := make(chan int, 1)
	done := returns(func() error {
		objs, err := w.List(context.Background(), runtime.Selection{Labels: labels.SelectorFromSet(labels.Set{"parent": "p"})})
		got <- len(objs)
		return err
	})
	d.Update(child("a", "20", "q"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != 0 {
		t.Fatalf("List of the old parent's children found %d, want 0: it read the state before the write", n)
	}
}

// A deletion is seen once the object is gone, or replaced under its name
// by another UID, or marked for deletion (finalizers keep it).
func TestWritesWaitForDeletions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		apply func(d *runtime.Driver[*corev1.ConfigMap])
	}{
		{"gone", func(d *runtime.Driver[*corev1.ConfigMap]) { d.Delete(child("a", "20", "p")) }},
		{"another uid", func(d *runtime.Driver[*corev1.ConfigMap]) {
			d.Delete(child("a", "20", "p"))
			n := child("a", "21", "p")
			n.UID = "uid-other"
			d.Add(n)
		}},
		{"marked", func(d *runtime.Driver[*corev1.ConfigMap]) {
			m := child("a", "20", "p")
			m.Finalizers = []string{"keep"}
			m.DeletionTimestamp = &metav1.Time{Time: time.Now()}
			d.Update(m)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, d, _ := synced(t, child("a", "10", "p"))
			w := runtime.NewWrites(s, 5*time.Second)
			w.Deleted(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}) // no UID: the stored one's
			got := make(chan int, 1)
			done := returns(func() error {
				objs, err := w.List(context.Background(), runtime.Selection{Namespace: "ns"})
				n := 0
				for _, o := range objs {
					if o.UID == "uid-a" && o.DeletionTimestamp == nil {
						n++
					}
				}
				got <- n
				return err
			})
			tc.apply(d)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if n := <-got; n != 0 {
				t.Fatal("List read the deleted object back")
			}
		})
	}
}

// A read also waits for the writes of its object still in flight when it
// began: it cannot read the state before a write that started before it.
func TestWritesWaitForWritesInFlight(t *testing.T) {
	s, d, _ := synced(t, child("a", "10", "p"))
	w := runtime.NewWrites(s, 5*time.Second)
	end := w.Begin("ns", "a")
	ctx := &askedCtx{Context: context.Background(), asked: make(chan struct{})}
	got := make(chan string, 1)
	done := returns(func() error {
		a, _, err := w.Get(ctx, "ns", "a")
		got <- a.ResourceVersion
		return err
	})
	select { // the Get has begun, and waits, before the write ends
	case <-ctx.asked:
	case rv := <-got:
		t.Fatalf("Get read resourceVersion %s while the write was in flight: it did not wait for it", rv)
	case <-time.After(5 * time.Second):
		t.Fatal("Get neither waited nor returned")
	}
	w.Wrote(child("a", "20", "p")) // the answer recorded, then the write ended (Begin)
	end()
	d.Update(child("a", "20", "p"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rv := <-got; rv != "20" {
		t.Fatalf("Get read resourceVersion %s, want 20: it did not wait for the write in flight", rv)
	}
}

// askedCtx closes asked when a read first selects on Done: the read has
// begun and is waiting.
type askedCtx struct {
	context.Context
	once  sync.Once
	asked chan struct{}
}

func (c *askedCtx) Done() <-chan struct{} {
	c.once.Do(func() { close(c.asked) })
	return c.Context.Done()
}

// A store that does not see a write within the limit fails the read with
// a StaleReadError naming the object and the resourceVersion waited for;
// the caller's context ending first returns its error.
func TestWritesWaitIsBounded(t *testing.T) {
	s, _, m := synced(t, child("a", "10", "p"))
	w := runtime.NewWrites(s, 50*time.Millisecond)
	w.Wrote(child("a", "20", "p"))
	_, _, err := w.Get(context.Background(), "ns", "a")
	var stale *runtime.StaleReadError
	if !errors.As(err, &stale) || stale.Key != (runtime.Key{Namespace: "ns", Name: "a"}) || stale.ResourceVersion != "20" ||
		stale.StoreAt != "10" || stale.Waited < 50*time.Millisecond {
		t.Fatalf("Get past the limit: %#v", err)
	}
	if m.count("get timeout") != 1 {
		t.Fatalf("the timeout was not counted: %v", m.calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.List(ctx, runtime.Selection{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("List with its context done: %v", err)
	}
	if m.count("list cancelled") != 1 {
		t.Fatalf("the cancelled wait was not counted: %v", m.calls)
	}
}

// Where resourceVersions do not compare (a server that is not etcd-backed),
// waits return at once, counted as failed open, never hang.
func TestWaitsFailOpen(t *testing.T) {
	s, _, m := synced(t, child("a", "v10", "p"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitForObject(ctx, runtime.Key{Namespace: "ns", Name: "a"}, "v20"); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitForResourceVersion(ctx, "v20"); err != nil {
		t.Fatal(err)
	}
	w := runtime.NewWrites(s, 5*time.Second)
	w.Wrote(child("a", "v20", "p"))
	if _, _, err := w.Get(ctx, "ns", "a"); err != nil {
		t.Fatal(err)
	}
	if n := m.count("object fail-open") + m.count("resource-version fail-open") + m.count("get fail-open"); n != 3 {
		t.Fatalf("%d waits counted as failed open, want 3: %v", n, m.calls)
	}
}

// The Syncer's own waits: for a resourceVersion of the server's state, and
// for an object at a resourceVersion, which is also met once the store has
// seen past it without the object (deleted, or out of the selection).
func TestSyncerWaits(t *testing.T) {
	s, d, _ := synced(t, child("a", "10", "p"))
	ctx := context.Background()
	version := returns(func() error { return s.WaitForResourceVersion(ctx, "30") })
	object := returns(func() error { return s.WaitForObject(ctx, runtime.Key{Namespace: "ns", Name: "b"}, "25") })
	d.Add(child("c", "30", "p"))
	for _, done := range []<-chan error{version, object} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if got := s.LastSyncResourceVersion(); got != "30" {
		t.Fatalf("LastSyncResourceVersion = %q, want 30", got)
	}
}

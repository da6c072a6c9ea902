package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A blocked handler's queue folds the events of each object: after 100
// updates of 10 objects it holds 10 nodes, and once released the handler
// sees each object's latest state with the state it last received as old.
func TestSlowHandlerGetsLatestStatePerObject(t *testing.T) {
	s, d := NewDriver[*corev1.ConfigMap](Resource{})
	release, entered := make(chan struct{}), make(chan struct{})
	var l log
	h := l.handler().(HandlerFuncs[*corev1.ConfigMap])
	add := h.AddFunc
	h.AddFunc = func(o *corev1.ConfigMap) {
		if o.Name == "block" {
			close(entered)
			<-release
		}
		add(o)
	}
	reg := s.AddHandler(h)
	d.s.cache.upsert(cm("block", "1"))
	<-entered
	for i := range 10 {
		d.s.cache.upsert(cm(fmt.Sprint("o", i), "1"))
	}
	d.s.cache.delete(cm("o9", "2")) // added and deleted before the handler saw it
	for rv := 2; rv <= 10; rv++ {
		for i := range 9 {
			d.s.cache.upsert(cm(fmt.Sprint("o", i), fmt.Sprint(rv)))
		}
	}
	if n := reg.Pending(); n > 9 {
		t.Fatalf("%d calls pending for 9 objects", n)
	}
	close(release)
	d.Wait()
	want := "add block@1"
	for i := range 9 {
		want += fmt.Sprintf(", add o%d@10", i)
	}
	if got := l.take(); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	d.Update(cm("o0", "11"))
	if got := l.take(); got != "update o0@10>11" {
		t.Fatalf("after catching up: %s", got)
	}
}

// A handler may remove itself, add another handler and read the store from
// inside a call; a panicking handler keeps getting events.
func TestHandlersMayCallBackAndPanic(t *testing.T) {
	s, d := NewDriver[*corev1.ConfigMap](Resource{})
	var reg *Registration
	added := make(chan *Registration, 1)
	var l log
	reg = s.AddHandler(HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(o *corev1.ConfigMap) {
		_, _ = s.Store().Get(o.Namespace, o.Name)
		added <- s.AddHandler(l.handler())
		reg.Remove()
	}})
	panics := 0
	s.AddHandler(HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(o *corev1.ConfigMap) {
		panics++
		panic("handler bug")
	}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Add(cm("a", "1"))
		d.Add(cm("b", "1"))
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("deadlock: a handler removed itself from inside a call")
	}
	<-reg.Done()
	<-added
	d.Wait()
	if got := l.take(); got != "add a@1, add b@1" {
		t.Fatalf("handler added from inside a handler got %q", got)
	}
	if panics != 2 {
		t.Fatalf("the panicking handler got %d calls, want 2", panics)
	}
}

// WaitForSync returns once the handlers got OnSync, not only the store.
func TestWaitForSyncWaitsForHandlers(t *testing.T) {
	s, d := NewDriver[*corev1.ConfigMap](Resource{})
	release := make(chan struct{})
	reg := s.AddHandler(HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(*corev1.ConfigMap) { <-release }})
	d.s.cache.upsert(cm("a", "1"))
	d.s.cache.finishResync(d.s.part, "")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.WaitForSync(ctx); !errors.Is(err, context.DeadlineExceeded) || !s.HasSynced() || reg.HasSynced() {
		t.Fatalf("WaitForSync = %v with the handler blocked; HasSynced %v, handler %v", err, s.HasSynced(), reg.HasSynced())
	}
	close(release)
	if err := s.WaitForSync(context.Background()); err != nil || !reg.HasSynced() {
		t.Fatalf("WaitForSync = %v, handler synced %v", err, reg.HasSynced())
	}
}

// Run returns only once no handler call is under way, also when the
// handler inside a call was removed meanwhile.
func TestRunWaitsForARemovedHandlersCall(t *testing.T) {
	s, d := NewDriver[*corev1.ConfigMap](Resource{})
	inside, release := make(chan struct{}), make(chan struct{})
	var returned atomic.Bool
	reg := s.AddHandler(HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(*corev1.ConfigMap) {
		close(inside)
		<-release
		returned.Store(true)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	go d.Resync(cm("a", "1")) // it waits for the handler, which waits for release
	<-inside
	reg.Remove()
	cancel()
	select {
	case <-ran:
		t.Fatal("Run returned while a call of a removed handler was under way")
	case <-time.After(300 * time.Millisecond): // a window to observe that Run waits
	}
	close(release)
	if err := <-ran; err != nil || !returned.Load() {
		t.Fatalf("Run: %v, handler returned: %v", err, returned.Load())
	}
}

// blockedLog is a log whose handler blocks in its first OnUpdate of
// "block" until release is closed, and whose OnDelete says how.
func blockedLog(l *log, release chan struct{}) Handler[*corev1.ConfigMap] {
	h := l.handler().(HandlerFuncs[*corev1.ConfigMap])
	upd := h.UpdateFunc
	h.UpdateFunc = func(old, o *corev1.ConfigMap) {
		if o.Name == "block" {
			<-release
		}
		upd(old, o)
	}
	h.DeleteFunc = func(o *corev1.ConfigMap, how Deletion) {
		s := "delete " + o.Name + "@" + o.ResourceVersion
		if how == DeletionInferred {
			s += " inferred"
		}
		l.calls = append(l.calls, s)
	}
	return h
}

// Updates folded while the handler is behind keep the state it last got
// as old; a delete after them is one OnDelete. An object deleted and made
// again under its name is OnDelete of the state the handler holds
// (inferred), then OnAdd; through delete u1, create u2, delete u2 the
// handler is told that u1, which it holds, is gone, and nothing of u2,
// which it never received. Without UIDs (after a transform), a delete and
// a create folded are still a delete and an add.
func TestFoldedUpdatesDeletesAndRecreations(t *testing.T) {
	uid := func(o *corev1.ConfigMap, u string) *corev1.ConfigMap { o.UID = types.UID(u); return o }
	s, d := NewDriver[*corev1.ConfigMap](Resource{})
	d.Add(uid(cm("a", "1"), "u1"), uid(cm("b", "1"), "u2"), uid(cm("c", "1"), "u4"), cm("e", "1"), uid(cm("block", "1"), "u3"))
	release := make(chan struct{})
	var l log
	s.AddHandler(blockedLog(&l, release))
	d.Wait()
	l.take()
	d.s.cache.upsert(uid(cm("block", "2"), "u3"))
	d.s.cache.upsert(uid(cm("a", "2"), "u1"))
	d.s.cache.upsert(uid(cm("a", "3"), "u1"))
	d.s.cache.upsert(uid(cm("b", "2"), "u2"))
	d.s.cache.delete(uid(cm("b", "3"), "u2"))
	d.s.cache.delete(uid(cm("a", "4"), "u1"))
	d.s.cache.upsert(uid(cm("a", "5"), "u9"))
	d.s.cache.delete(uid(cm("c", "2"), "u4"))
	d.s.cache.upsert(uid(cm("c", "3"), "u5"))
	d.s.cache.delete(uid(cm("c", "4"), "u5"))
	d.s.cache.delete(cm("e", "2")) // no UIDs
	d.s.cache.upsert(cm("e", "3"))
	close(release)
	d.Wait()
	want := "update block@1>2, delete a@1 inferred, add a@5, delete b@3, delete c@1 inferred, delete e@1 inferred, add e@3"
	if got := l.take(); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

// An object deleted by a resync is told after that resync's
// OnResyncStarted, also when the handler still has an update of it
// waiting from before the resync.
func TestInferredDeletionComesAfterItsResyncStarted(t *testing.T) {
	s, d := NewDriver[*corev1.ConfigMap](Resource{})
	d.Add(cm("a", "1"), cm("block", "1"))
	release := make(chan struct{})
	var l log
	s.AddHandler(blockedLog(&l, release))
	d.Wait()
	l.take()
	d.s.cache.upsert(cm("block", "2"))
	d.s.cache.upsert(cm("a", "2")) // waits behind block
	d.s.cache.beginResync(d.s.part)
	d.s.cache.upsert(cm("block", "2")) // a is not seen again
	d.s.cache.finishResync(d.s.part, "3")
	close(release)
	d.Wait()
	if got, want := l.take(), "update block@1>2, update a@1>2, resync, delete a@2 inferred, sync"; got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

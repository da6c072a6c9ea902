package ctrlsyncer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// A Client whose reads are no older than a second by default: with writes
// flowing and no delay they answer, its own Update is read back by a
// consistent read (NoOlderThan(0)) composed with read-your-own-writes;
// once a proxy delays its syncer's watch by 3 s, a Get and a List fail
// with a *runtime.LagError, while a Get that allows 10 s answers.
func TestReadsNoOlderThan(t *testing.T) {
	srv, direct, ns := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := direct.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}, Data: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	proxy := testbed.StartProxy(t, srv)
	mgr := newManager(t, proxy.Config(), logr.Discard(), readsItsWrites(true))
	c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)), ctrlsyncer.WithReadsNoOlderThan(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ctrlsyncer.Add(mgr, field(c), coresyncers.ConfigMapSyncerIn)
	if err != nil {
		t.Fatal(err)
	}
	start(t, mgr)
	if err := s.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	w := testbed.StartWriter(t, srv.Config(), ns, testbed.WriterOptions{Rate: 100, Population: 20, KeepExisting: true, MaxDuration: 2 * time.Minute})
	defer w.Stop()
	key := client.ObjectKey{Namespace: ns, Name: "a"}
	var a corev1.ConfigMap
	for i := range 3 {
		if err := c.Get(ctx, key, &a); err != nil {
			t.Fatalf("Get %d no older than 1s, no delay: %v", i, err)
		}
	}
	if err := c.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(ns)); err != nil {
		t.Fatalf("List no older than 1s, no delay: %v", err)
	}
	a.Data = map[string]string{"mine": "1"}
	if err := c.Update(ctx, &a); err != nil {
		t.Fatal(err)
	}
	var got corev1.ConfigMap
	if err := c.Get(ctx, key, &got, ctrlsyncer.NoOlderThan(0)); err != nil || got.ResourceVersion != a.ResourceVersion {
		t.Fatalf("consistent Get after its own Update: %v, resourceVersion %s, want %s", err, got.ResourceVersion, a.ResourceVersion)
	}

	proxy.DelayWatches(3 * time.Second)
	proxy.CutAll() // the syncer's watch reopens, delayed
	var lagErr *runtime.LagError
	deadline := time.Now().Add(30 * time.Second)
	for err := c.Get(ctx, key, &got); !errors.As(err, &lagErr); err = c.Get(ctx, key, &got) {
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("Get no older than 1s under a 3s delay: %v, want a *runtime.LagError", err)
		}
	}
	if err := c.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(ns)); !errors.As(err, &lagErr) {
		t.Errorf("List no older than 1s under a 3s delay: %v, want a *runtime.LagError", err)
	}
	if err := c.Get(ctx, key, &got, ctrlsyncer.NoOlderThan(10*time.Second)); err != nil {
		t.Errorf("Get no older than 10s under a 3s delay: %v", err)
	}
}

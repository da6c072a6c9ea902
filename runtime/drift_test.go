package runtime_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
)

// driftMetrics counts what drift checks repaired, by reason, and the
// watches ended for a check.
type driftMetrics struct {
	runtime.NopMetrics
	mu       sync.Mutex
	repaired map[runtime.Reason]int
	cuts     int
	relists  map[runtime.Reason]int
}

func newDriftMetrics() *driftMetrics {
	return &driftMetrics{repaired: map[runtime.Reason]int{}, relists: map[runtime.Reason]int{}}
}

func (m *driftMetrics) DriftRepaired(r runtime.Reason) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.repaired[r]++
}

func (m *driftMetrics) Reconnected(r runtime.Reason) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r == runtime.ReasonDriftCheck {
		m.cuts++
	}
}

func (m *driftMetrics) Relisted(r runtime.Reason) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.relists[r]++
}

func (m *driftMetrics) String() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("repaired %v, watches ended for a check %d, relists %v", m.repaired, m.cuts, m.relists)
}

// A proxy loses one watch event of each kind (a MODIFIED, an ADDED, a
// DELETED), so that the store and the handler hold a stale object, lack a
// new one and keep a deleted one: the drift check repairs all three
// within its period, with no full resync. The store and the state rebuilt
// from the handler's calls then equal a quorum LIST, the handler got each
// repair as the event it lost (OnUpdate, OnAdd, OnDelete inferred) and
// nothing that breaks the Handler contract, and Metrics.DriftRepaired
// counted one of each reason.
func TestDriftCheckRepairsLostEvents(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 20, nil)
	proxy := testbed.StartProxy(t, srv)
	proxy.DropWatchEvent("MODIFIED", "cm-0003")
	proxy.DropWatchEvent("ADDED", "late")
	proxy.DropWatchEvent("DELETED", "cm-0005")
	const period = 3 * time.Second
	m := newDriftMetrics()
	s, c, _ := startChecked(t, proxy.Config(), ns, runtime.WithDriftCheck(period), runtime.WithMetrics(m))
	if err := s.WaitForSync(ctxTimeout(t, time.Minute)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps(ns)
	if _, err := cms.Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-0003"}, Data: map[string]string{"lost": "1"}}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "cm-0005", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// A change that does arrive moves the watch past the lost ones (as the
	// server's bookmark, about every minute, would).
	last, err := cms.Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-0000"}, Data: map[string]string{"seen": "1"}}, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	written := time.Now()
	eventually(t, time.Minute, "the three events dropped and the last one delivered", func() bool {
		got, ok := s.Store().Get(ns, "cm-0000")
		return proxy.EventsDropped() == 3 && ok && got.ResourceVersion == last.ResourceVersion
	})
	mc := metadata.NewForConfigOrDie(srv.Config())
	if want, _, err := quorumList(mc, ns); err != nil {
		t.Fatal(err)
	} else if d := compare(storeState(s), want); d.empty() && m.String() == newDriftMetrics().String() {
		t.Fatalf("the store matches the server with no drift check yet: the proxy lost nothing")
	}
	checkConverged(t, mc, ns, s, c, period*11/10+20*time.Second)
	t.Logf("repaired %s after the lost events (drift check every %s): %s", time.Since(written).Round(time.Millisecond), period, m)
	eventually(t, 10*time.Second, "one repair of each reason", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.repaired[runtime.ReasonDriftStale] == 1 && m.repaired[runtime.ReasonDriftMissing] == 1 && m.repaired[runtime.ReasonDriftGone] == 1
	})
	c.checkViolations(t)
	c.mu.Lock()
	inferred := c.deletes
	resyncs := c.resyncs
	c.mu.Unlock()
	if inferred != 1 || resyncs != 1 {
		t.Errorf("the handler got %d deletions and %d resyncs; want cm-0005's, and the first sync's only", inferred, resyncs)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cuts == 0 || len(m.relists) != 1 || m.relists[runtime.ReasonInitial] != 1 {
		t.Errorf("%d watches ended for a check, relists %v: want checks between watches and no resync after the first", m.cuts, m.relists)
	}
}

// When more differs than fetching can repair cheaply (20 lost updates of
// 60 objects), the drift check resyncs from the store instead, as after a
// 410 Gone (Metrics.Relisted with ReasonDrift): the handler gets a resync,
// with OnUpdate for the 20, and the store and the rebuilt state equal a
// quorum LIST.
func TestDriftCheckResyncsWhenMuchDiffers(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 60, nil)
	proxy := testbed.StartProxy(t, srv)
	for i := range 20 {
		proxy.DropWatchEvent("MODIFIED", fmt.Sprintf("cm-%04d", i))
	}
	const period = 3 * time.Second
	m := newDriftMetrics()
	s, c, _ := startChecked(t, proxy.Config(), ns, runtime.WithDriftCheck(period), runtime.WithMetrics(m))
	if err := s.WaitForSync(ctxTimeout(t, time.Minute)); err != nil {
		t.Fatal(err)
	}
	updateConfigMaps(t, cs, ns, 20, 1)
	last, err := cs.CoreV1().ConfigMaps(ns).Update(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-0059"}, Data: map[string]string{"seen": "1"}}, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "20 events dropped and the last one delivered", func() bool {
		got, ok := s.Store().Get(ns, "cm-0059")
		return proxy.EventsDropped() == 20 && ok && got.ResourceVersion == last.ResourceVersion
	})
	checkConverged(t, metadata.NewForConfigOrDie(srv.Config()), ns, s, c, period*11/10+20*time.Second)
	c.checkViolations(t)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.relists[runtime.ReasonDrift] != 1 {
		t.Errorf("%s: want one resync for the drift", m)
	}
	if updates, _ := c.counts(); updates != 21 {
		t.Errorf("the handler got %d updates, want 21 (the 20 lost, and cm-0059's)", updates)
	}
}

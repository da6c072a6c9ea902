package testbed_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The writer writes at about its rate, keeps its population, adopts what
// the namespace held, and counts the errors of a server that went away
// without failing.
func TestConsistencyWriter(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ctx := context.Background()
	ns := srv.Namespace(t)
	testbed.FillConfigMaps(t, cs, ns, 100, 10)
	p := testbed.StartProxy(t, srv)
	w := testbed.StartWriter(t, p.Config(), ns, testbed.WriterOptions{Rate: 200, Population: 100})
	deadline := time.Now().Add(20 * time.Second)
	for w.Stats().Writes() < 400 {
		if time.Now().After(deadline) {
			t.Fatalf("writer: %s after 20s, want 400 writes", w.Stats())
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.Pause()
	for w.Stats().Errors < 20 {
		if time.Now().After(deadline) {
			t.Fatalf("writer behind a paused proxy: %s, want errors counted", w.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.Resume()
	before := w.Stats().Writes()
	for w.Stats().Writes() < before+100 {
		if time.Now().After(deadline) {
			t.Fatalf("writer after Resume: %s, want it to carry on", w.Stats())
		}
		time.Sleep(50 * time.Millisecond)
	}
	st := w.Stop()
	t.Logf("writer: %s", st)
	if rate := float64(st.Writes()+st.Errors) / st.Elapsed.Seconds(); rate > 200*1.3 {
		t.Errorf("writer at %.0f/s, above its rate of 200/s", rate)
	}
	if st.Creates == 0 || st.Updates == 0 || st.Deletes == 0 {
		t.Errorf("writer: %s, want creates, updates and deletes", st)
	}
	if st.LastError == nil || errors.Is(st.LastError, context.Canceled) {
		t.Errorf("last error %v, want the paused proxy's 503", st.LastError)
	}
	after := w.Stats().Writes()
	list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Stats().Writes() != after {
		t.Error("the writer wrote after Stop returned")
	}
	// 100 adopted, population target 100: it stays near it.
	if n := len(list.Items); n < 50 || n > 200 {
		t.Errorf("%d ConfigMaps left, want about 100", n)
	}
}

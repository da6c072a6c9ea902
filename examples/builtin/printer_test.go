package main

import (
	"bytes"
	"strings"
	"testing"

	corev1syncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func pod(name, node, rv string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: name, ResourceVersion: rv},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: phase},
	}
}

// The printer on a PodSyncer fed by a driver: no server.
func TestPrinterWithPodDriver(t *testing.T) {
	s, d := corev1syncers.NewPodDriver()
	var out, errs bytes.Buffer
	bar := progress.New(&errs, "syncing pods", 3, progress.WithTerminal(false))
	s.AddHandler(newPrinter(s.Syncer, bar, true, &out, &errs, describePod, podsPerNode(s.Store())))

	d.Add(pod("a", "node-1", "10", corev1.PodRunning), pod("b", "node-1", "11", corev1.PodRunning), pod("c", "", "12", corev1.PodPending))
	if out.Len() != 0 {
		t.Fatalf("printed during the initial sync:\n%s", out.String())
	}
	d.Sync()
	d.Update(pod("c", "node-2", "13", corev1.PodRunning))
	d.Delete(pod("a", "node-1", "14", corev1.PodSucceeded))

	want := []string{
		"pods per node: <unscheduled>=1 node-1=2",
		"updated pod web/c node=node-2 phase=Running",
		"deleted pod web/a node=node-1 phase=Succeeded",
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != 4 || got[0] != want[0] || got[2] != want[1] || got[3] != want[2] ||
		!strings.HasPrefix(got[1], "synced 3 pods in ") || !strings.HasSuffix(got[1], "s mode=list") {
		t.Errorf("got\n%s\nwant\n%s\nsynced 3 pods in ...s mode=list\n%s\n%s", out.String(), want[0], want[1], want[2])
	}
	if !strings.Contains(errs.String(), "syncing pods: 3/3 (100%) done in ") {
		t.Errorf("progress on stderr:\n%s", errs.String())
	}
	if got := len(s.Store().ByNodeName("node-2")); got != 1 {
		t.Errorf("ByNodeName(node-2) has %d pods, want 1", got)
	}
}

func TestOncePrintsNoEvents(t *testing.T) {
	s, d := corev1syncers.NewPodDriver()
	var out bytes.Buffer
	bar := progress.New(&bytes.Buffer{}, "syncing pods", 0)
	s.AddHandler(newPrinter(s.Syncer, bar, false, &out, &bytes.Buffer{}, describePod, nil))
	d.Sync()
	d.Add(pod("a", "node-1", "10", corev1.PodRunning))
	if got := strings.Count(out.String(), "\n"); got != 1 || !strings.HasPrefix(out.String(), "synced 0 pods in ") {
		t.Errorf("printed %q; want only the synced line", out.String())
	}
}

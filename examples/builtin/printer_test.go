package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	corev1syncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
	"github.com/syncer-gen/syncer-gen/examples/internal/size"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// syncedPods matches the synced line of n pods in a store of b bytes, as
// the driver syncs them (mode=list).
func syncedPods(n int, b int64) *regexp.Regexp {
	return regexp.MustCompile(fmt.Sprintf(`^synced %d pods in \d+\.\d\ds mode=list store=%s$`, n, regexp.QuoteMeta(size.Format(b))))
}

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
	store := s.Store()
	s.AddHandler(newPrinter(s.Syncer, bar, true, &out, &errs, show[*corev1.Pod]{
		describe: describePod, summary: podsPerNode(store.List, store.ByNodeName, podNode)}))

	d.Add(pod("a", "node-1", "10", corev1.PodRunning), pod("b", "node-1", "11", corev1.PodRunning), pod("c", "", "12", corev1.PodPending))
	if out.Len() != 0 {
		t.Fatalf("printed during the initial sync:\n%s", out.String())
	}
	d.Sync()
	synced := s.Store().Bytes()
	d.Update(pod("c", "node-2", "13", corev1.PodRunning))
	d.Delete(pod("a", "node-1", "14", corev1.PodSucceeded))

	want := []string{
		"pods per node: <unscheduled>=1 node-1=2",
		"updated pod web/c node=node-2 phase=Running",
		"deleted pod web/a node=node-1 phase=Succeeded",
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != 4 || got[0] != want[0] || got[2] != want[1] || got[3] != want[2] || !syncedPods(3, synced).MatchString(got[1]) {
		t.Errorf("got\n%s\nwant\n%s\n%s\n%s\n%s", out.String(), want[0], syncedPods(3, synced), want[1], want[2])
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
	s.AddHandler(newPrinter(s.Syncer, bar, false, &out, &bytes.Buffer{}, show[*corev1.Pod]{describe: describePod}))
	d.Sync()
	d.Add(pod("a", "node-1", "10", corev1.PodRunning))
	if got := strings.Count(out.String(), "\n"); got != 1 || !strings.HasPrefix(out.String(), "synced 0 pods in ") {
		t.Errorf("printed %q; want only the synced line", out.String())
	}
}

func nodePod(name, node, rv string, phase corev1.PodPhase, ips ...string) *corev1syncers.NodePod {
	p := &corev1syncers.NodePod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: name, ResourceVersion: rv},
		Spec: corev1syncers.NodePodSpec{NodeName: node, Containers: []corev1syncers.NodePodContainer{
			{Name: "app", Image: "shop/app:v1"}, {Name: "proxy", Image: "mesh/proxy:v2"}}},
		Status: corev1syncers.NodePodStatus{Phase: phase},
	}
	for _, ip := range ips {
		p.Status.PodIPs = append(p.Status.PodIPs, corev1.PodIP{IP: ip})
	}
	if len(ips) > 0 {
		p.Status.PodIP = ips[0]
	}
	return p
}

// The node agent's lines: each pod's images, phase and IPs, then what of
// them each update changes; its store's bytes in the synced line.
func TestPrinterWithNodePodDriver(t *testing.T) {
	s, d := corev1syncers.NewNodePodDriver()
	var out bytes.Buffer
	store := s.Store()
	s.AddHandler(newPrinter(s.Syncer, progress.New(&bytes.Buffer{}, "syncing pods", 0), true, &out, &bytes.Buffer{},
		show[*corev1syncers.NodePod]{describe: describeNodePod, changes: changesNodePod, summary: podsPerNode(store.List, store.ByNodeName, nodePodNode)}))

	d.Add(nodePod("a", "node-1", "10", corev1.PodRunning, "10.0.0.1"))
	d.Sync()
	synced := s.Store().Bytes()
	if synced <= 0 {
		t.Fatalf("Store().Bytes() = %d with a pod stored", synced)
	}
	d.Add(nodePod("b", "node-1", "11", corev1.PodPending))
	d.Update(nodePod("b", "node-1", "12", corev1.PodRunning, "10.0.0.2", "fd00::2"))
	b := nodePod("b", "node-1", "13", corev1.PodRunning, "10.0.0.2", "fd00::2")
	b.Spec.Containers[0].Image = "shop/app:v2"
	d.Update(b)
	b = b.DeepCopy()
	b.ResourceVersion, b.Labels = "14", map[string]string{"x": "y"}
	d.Update(b)
	b = b.DeepCopy()
	b.ResourceVersion, b.DeletionTimestamp = "15", &metav1.Time{}
	d.Update(b)
	d.Delete(nodePod("a", "node-1", "16", corev1.PodSucceeded, "10.0.0.1"))

	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		"pods per node: node-1=1",
		"", // the synced line
		"added pod web/b node=node-1 phase=Pending ips=<none> images=shop/app:v1,mesh/proxy:v2",
		"updated pod web/b phase=Pending→Running ips=<none>→10.0.0.2,fd00::2",
		"updated pod web/b images=shop/app:v1,mesh/proxy:v2→shop/app:v2,mesh/proxy:v2",
		"updated pod web/b no change to node, phase, IPs or images",
		"updated pod web/b terminating",
		"deleted pod web/a node=node-1 phase=Succeeded ips=10.0.0.1 images=shop/app:v1,mesh/proxy:v2",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), out.String())
	}
	if !syncedPods(1, synced).MatchString(got[1]) {
		t.Errorf("line 2 = %q, want %s", got[1], syncedPods(1, synced))
	}
	for i := range want {
		if i != 1 && got[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i+1, got[i], want[i])
		}
	}
}

// --node selects pods: only pods and nodepods take it (the field selector
// it makes is proven on the server, TestNodeAgent).
func TestNodeFlag(t *testing.T) {
	for _, r := range []string{"configmaps", "nodes", "deployments"} {
		if _, err := parseFlags([]string{"--resource", r, "--node", "node-1"}, io.Discard); err == nil || !strings.Contains(err.Error(), "--node needs --resource pods or nodepods") {
			t.Errorf("--resource %s --node: %v, want an error", r, err)
		}
	}
	for _, r := range []string{"pods", "nodepods"} {
		if o, err := parseFlags([]string{"--resource", r, "--node", "node-1"}, io.Discard); err != nil || o.node != "node-1" {
			t.Errorf("--resource %s --node node-1: node %q, %v", r, o.node, err)
		}
	}
}

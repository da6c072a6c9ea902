package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	corev1syncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The describe functions render the few fields of an object worth a look
// in an event line.

func describePod(p *corev1.Pod) string {
	node := p.Spec.NodeName
	if node == "" {
		node = "<none>"
	}
	return fmt.Sprintf("node=%s phase=%s", node, p.Status.Phase)
}

func describeConfigMap(cm *corev1.ConfigMap) string {
	return fmt.Sprintf("keys=%d", len(cm.Data)+len(cm.BinaryData))
}

func describeNode(n *corev1.Node) string {
	ready := corev1.ConditionUnknown
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = c.Status
		}
	}
	return fmt.Sprintf("ready=%s unschedulable=%t", ready, n.Spec.Unschedulable)
}

func describeDeployment(d *appsv1.Deployment) string {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	return fmt.Sprintf("ready=%d/%d", d.Status.ReadyReplicas, want)
}

// podsPerNode returns a summary that prints how many pods each node runs,
// read from the store's ByNodeName index, e.g. "pods on node-a: 12".
func podsPerNode(store corev1syncers.PodStore) func(io.Writer) {
	return func(w io.Writer) {
		seen := map[string]bool{}
		for _, p := range store.List() {
			seen[p.Spec.NodeName] = true
		}
		nodes := slices.Sorted(maps.Keys(seen))
		parts := make([]string, 0, len(nodes))
		for _, n := range nodes {
			name := n
			if name == "" {
				name = "<unscheduled>"
			}
			parts = append(parts, fmt.Sprintf("%s=%d", name, len(store.ByNodeName(n))))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "pods per node: %s\n", strings.Join(parts, " "))
		}
	}
}

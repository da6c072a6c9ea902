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
	return fmt.Sprintf("node=%s phase=%s", orNone(p.Spec.NodeName), p.Status.Phase)
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

// describeNodePod renders what a node agent reads of a pod: its node,
// phase, IPs and containers' images, e.g. "node=node-03 phase=Running
// ips=10.64.0.3 images=shop/app:v1,mesh/proxy:v1".
func describeNodePod(p *corev1syncers.NodePod) string {
	return fmt.Sprintf("node=%s phase=%s ips=%s images=%s", orNone(p.Spec.NodeName), orNone(string(p.Status.Phase)), podIPs(p), images(p))
}

// changesNodePod renders what changed between two states of a pod among
// what a node agent reads, e.g. "phase=Pending→Running ips=<none>→10.64.0.3",
// and "terminating" once its deletion has begun; "no change to node,
// phase, IPs or images" when the write was to something else (its labels,
// or fields the projection skips, whose writes still change its
// resourceVersion).
func changesNodePod(old, p *corev1syncers.NodePod) string {
	var c []string
	if old.DeletionTimestamp == nil && p.DeletionTimestamp != nil {
		c = append(c, "terminating")
	}
	add := func(field, a, b string) {
		if a != b {
			c = append(c, fmt.Sprintf("%s=%s→%s", field, a, b))
		}
	}
	add("node", orNone(old.Spec.NodeName), orNone(p.Spec.NodeName))
	add("phase", orNone(string(old.Status.Phase)), orNone(string(p.Status.Phase)))
	add("ips", podIPs(old), podIPs(p))
	add("images", images(old), images(p))
	if len(c) == 0 {
		return "no change to node, phase, IPs or images"
	}
	return strings.Join(c, " ")
}

// podIPs are a pod's IPs, comma-separated, or "<none>".
func podIPs(p *corev1syncers.NodePod) string {
	ips := make([]string, 0, len(p.Status.PodIPs))
	for _, ip := range p.Status.PodIPs {
		ips = append(ips, ip.IP)
	}
	if len(ips) == 0 && p.Status.PodIP != "" {
		ips = append(ips, p.Status.PodIP)
	}
	return orNone(strings.Join(ips, ","))
}

// images are a pod's containers' images, comma-separated, or "<none>".
func images(p *corev1syncers.NodePod) string {
	out := make([]string, 0, len(p.Spec.Containers))
	for _, c := range p.Spec.Containers {
		out = append(out, c.Image)
	}
	return orNone(strings.Join(out, ","))
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func podNode(p *corev1.Pod) string                { return p.Spec.NodeName }
func nodePodNode(p *corev1syncers.NodePod) string { return p.Spec.NodeName }

// podsPerNode returns a summary that prints how many pods each node runs,
// read from the store's nodeName index (byNode), e.g. "pods per node:
// node-a=12 node-b=3"; list and nodeOf find the nodes.
func podsPerNode[T any](list func() []T, byNode func(string) []T, nodeOf func(T) string) func(io.Writer) {
	return func(w io.Writer) {
		seen := map[string]bool{}
		for _, p := range list() {
			seen[nodeOf(p)] = true
		}
		nodes := slices.Sorted(maps.Keys(seen))
		parts := make([]string, 0, len(nodes))
		for _, n := range nodes {
			name := n
			if name == "" {
				name = "<unscheduled>"
			}
			parts = append(parts, fmt.Sprintf("%s=%d", name, len(byNode(n))))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "pods per node: %s\n", strings.Join(parts, " "))
		}
	}
}

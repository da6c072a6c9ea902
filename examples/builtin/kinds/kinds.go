package kinds

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Pod is core/v1 Pod, indexed by node and phase, without managed fields.
//
// +syncer-gen
// +syncer-gen:index(nodeName)=.spec.nodeName
// +syncer-gen:index(phase)=.status.phase
// +syncer-gen:stripManagedFields
type Pod = corev1.Pod

// ConfigMap is core/v1 ConfigMap, with the runtime's defaults.
//
// +syncer-gen
type ConfigMap = corev1.ConfigMap

// ConfigMapMeta is core/v1 ConfigMap as an owner-reference walker or a
// label auditor reads it: its labels, annotations and owners. A projection
// of metadata only, it asks the server for PartialObjectMetadata, so that a
// ConfigMap's data never crosses the wire (docs/dynamic.md).
//
// +syncer-gen
// +syncer-gen:keep=.metadata.labels
// +syncer-gen:keep=.metadata.annotations
// +syncer-gen:keep=.metadata.ownerReferences
type ConfigMapMeta = corev1.ConfigMap

// Node is core/v1 Node, indexed by zone label.
//
// +syncer-gen
// +syncer-gen:index(zone)=.metadata.labels[topology.kubernetes.io/zone]
type Node = corev1.Node

// Deployment is apps/v1 Deployment, indexed by the app its selector matches.
//
// +syncer-gen
// +syncer-gen:index(app)=.spec.selector.matchLabels[app]
type Deployment = appsv1.Deployment

// NodePod is core/v1 Pod as a node agent reads it: its labels and owners,
// its node, its containers' names and images, its phase and IPs. The
// syncer's generated decoders read these off the wire and skip the rest
// (specs' env, probes, volumes, statuses' conditions, managed fields...):
// the store keeps about a tenth of a full Pod's bytes (README: Projected
// syncers).
//
// +syncer-gen
// +syncer-gen:keep=.metadata.labels
// +syncer-gen:keep=.metadata.ownerReferences
// +syncer-gen:keep=.spec.nodeName
// +syncer-gen:keep=.spec.containers[*].name
// +syncer-gen:keep=.spec.containers[*].image
// +syncer-gen:keep=.status.phase
// +syncer-gen:keep=.status.podIP
// +syncer-gen:keep=.status.podIPs
// +syncer-gen:index(nodeName)=.spec.nodeName
// +syncer-gen:index(phase)=.status.phase
type NodePod = corev1.Pod

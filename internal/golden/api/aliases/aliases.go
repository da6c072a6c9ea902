package aliases

import (
	thingsv1 "github.com/syncer-gen/syncer-gen/internal/golden/api/things/v1"
	corev1 "k8s.io/api/core/v1"
)

// ConfigMap is core/v1 ConfigMap with an index on a label.
//
// +syncer-gen
// +syncer-gen:index(app)=.metadata.labels[app]
type ConfigMap = corev1.ConfigMap

// NodePod is core/v1 Pod as a node agent reads it: its labels and owners,
// its node, its containers' names and images, its phase and IPs.
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
// +syncer-gen:index(node)=.spec.nodeName
type NodePod = corev1.Pod

// GadgetSummary is a Gadget as a dashboard reads it: seven fields of a
// custom resource, decoded from JSON.
//
// +syncer-gen
// +syncer-gen:keep=.spec.owner
// +syncer-gen:keep=.spec.secretName
// +syncer-gen:keep=.spec.dnsNames
// +syncer-gen:keep=.spec.issuerRef.name
// +syncer-gen:keep=.status.phase
// +syncer-gen:keep=.status.ready
// +syncer-gen:keep=.status.notAfter
// +syncer-gen:index(owner)=.spec.owner
type GadgetSummary = thingsv1.Gadget

// PodOwners is core/v1 Pod as a garbage collector reads it: its labels
// and owners. A projection of metadata only, it asks the server for
// PartialObjectMetadata.
//
// +syncer-gen
// +syncer-gen:keep=.metadata.labels
// +syncer-gen:keep=.metadata.ownerReferences
// +syncer-gen:index(owner)=.metadata.ownerReferences[*].uid
type PodOwners = corev1.Pod

// GadgetMeta is a Gadget's labels and annotations: a projection of
// metadata only of a custom resource, read from JSON.
//
// +syncer-gen
// +syncer-gen:keep=.metadata.labels
// +syncer-gen:keep=.metadata.annotations
type GadgetMeta = thingsv1.Gadget

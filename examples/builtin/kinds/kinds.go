// Package kinds selects the built-in types that examples/builtin syncs. One
// cannot put markers on k8s.io/api, so each type gets an alias here, and
// syncer-gen reads the markers on the alias: the syncer is generated for the
// aliased type, with the options given here.
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

// Package aliases gives markers to types of k8s.io/api, which cannot be
// annotated, through aliases.
package aliases

import corev1 "k8s.io/api/core/v1"

// ConfigMap is core/v1 ConfigMap with an index on a label.
//
// +syncer-gen
// +syncer-gen:index(app)=.metadata.labels[app]
type ConfigMap = corev1.ConfigMap

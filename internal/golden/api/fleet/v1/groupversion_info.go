// Package v1 is a kubebuilder-style fixture API group for syncer-gen's
// golden tests, laid out as kubebuilder scaffolds it: the group in
// groupversion_info.go, +kubebuilder:object:root on the kinds and their
// lists, their resource names and scopes in +kubebuilder:resource, and no
// +genclient. The package's +syncer-gen selects its root kinds.
//
// +kubebuilder:object:generate=true
// +groupName=fleet.golden.example.com
// +syncer-gen
package v1

import "k8s.io/apimachinery/pkg/runtime/schema"

// GroupVersion is the group and version of this package's kinds.
var GroupVersion = schema.GroupVersion{Group: "fleet.golden.example.com", Version: "v1"}

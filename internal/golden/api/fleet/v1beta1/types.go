package v1beta1

import (
	v1 "github.com/syncer-gen/syncer-gen/internal/golden/api/fleet/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Crate is v1's Crate, served as v1beta1 too.
//
// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Crate v1.Crate

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type CrateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Crate `json:"items"`
}

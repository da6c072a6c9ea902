package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Cactus is cluster-scoped, and its plural is not the one the kind would
// give ("cactuses"): both only in its kubebuilder marker.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=cacti,scope=Cluster,shortName={cac,cacs}
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Cactus struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CactusSpec `json:"spec,omitempty"`
}

// CactusSpec is what a cactus wants.
type CactusSpec struct {
	Water string `json:"water,omitempty"`
}

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type CactusList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Cactus `json:"items"`
}

// Crate is namespaced, by kubebuilder's default, with an index.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +syncer-gen:index(owner)=.spec.owner
type Crate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CrateSpec `json:"spec,omitempty"`
}

// CrateSpec is what a crate holds.
type CrateSpec struct {
	Owner string `json:"owner,omitempty"`
}

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type CrateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Crate `json:"items"`
}

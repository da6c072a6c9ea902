// deepcopy-gen stands in for controller-gen's object generator in this
// fixture, and reads its package marker from doc.go only: the kubebuilder
// markers syncer-gen reads are in groupversion_info.go.

// +k8s:deepcopy-gen=package

package v1beta1

// Package v1alpha1 is the shop.example.com/v1alpha1 API of the CRD example:
// one namespaced kind, Widget. Its markers are what a CRD project adds to
// use syncer-gen; the syncer generated from them lives in
// examples/crd/syncers/shop/v1alpha1.
//
// +k8s:deepcopy-gen=package
// +groupName=shop.example.com
package v1alpha1

// Package v1beta1 is the older version of the fleet fixture group, whose
// kind is a type defined over the v1 one, as gateway-api's v1beta1 does
// ("type Gateway v1.Gateway").
//
// +kubebuilder:object:generate=true
// +groupName=fleet.golden.example.com
// +syncer-gen
package v1beta1

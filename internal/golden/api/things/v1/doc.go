// Package v1 is a fixture API group for syncer-gen's golden tests. The
// package marker selects every +genclient type of the package, and strips
// managed fields from all of them unless a type says otherwise.
//
// +k8s:deepcopy-gen=package
// +groupName=things.golden.example.com
// +syncer-gen
// +syncer-gen:stripManagedFields
package v1

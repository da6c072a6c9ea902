package views

import shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"

// WidgetView is a Widget as a dashboard reads it: who owns it, its color
// and size, and its phase; annotations, labels, managed fields and the
// rest of metadata are skipped as they arrive (the store keeps name,
// namespace, uid, resourceVersion and deletionTimestamp).
//
// +syncer-gen
// +syncer-gen:keep=.spec.owner
// +syncer-gen:keep=.spec.color
// +syncer-gen:keep=.spec.size
// +syncer-gen:keep=.status.phase
// +syncer-gen:index(owner)=.spec.owner
// +syncer-gen:index(color)=.spec.color
type WidgetView = shopv1alpha1.Widget

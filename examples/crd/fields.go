package main

import (
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
)

// fields are what the program prints of a widget, read from a whole one
// (readWidget) or from its projection (readView, --view).
type fields struct {
	owner, color string
	size         int32
	phase        string
}

func readWidget(w *shopv1alpha1.Widget) fields {
	return fields{owner: w.Spec.Owner, color: w.Spec.Color, size: w.Spec.Size, phase: w.Status.Phase}
}

func readView(w *shopsyncers.WidgetView) fields {
	return fields{owner: w.Spec.Owner, color: w.Spec.Color, size: w.Spec.Size, phase: w.Status.Phase}
}

// widgetStore is what the program reads of a store: WidgetStore and
// WidgetViewStore both have it, with the indexes the markers declare.
type widgetStore[T any] interface {
	Len() int
	Bytes() int64 // what the store keeps, estimated (runtime.Store.Bytes)
	List() []T
	ByOwner(owner string) []T
	ByColor(color string) []T
}

var (
	_ widgetStore[*shopv1alpha1.Widget]    = shopsyncers.WidgetStore{}
	_ widgetStore[*shopsyncers.WidgetView] = shopsyncers.WidgetViewStore{}
)

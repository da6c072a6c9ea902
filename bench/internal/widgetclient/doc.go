// Package widgetclient is a REST client of the examples' Widgets
// (examples/crd), JSON as every custom resource: the bench creates widgets
// with it, and client-go's typed informer of widgets (the clientgo
// program) lists and watches with it, as informer-gen's would.
package widgetclient

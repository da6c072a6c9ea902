// Package views declares projections of the example's Widget: syncers that
// keep only the fields a program reads, decoded straight off the wire. A
// projection is declared on an alias, so the API package stays as it is
// and the full WidgetSyncer is generated beside it.
package views

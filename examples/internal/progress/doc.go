// Package progress shows how an initial sync advances: a Bar counts the
// objects received against an estimated total, which Estimate reads from
// the server with a one-item LIST of the resource's metadata.
//
// On a terminal the Bar redraws one line in place; elsewhere (a pipe, a
// file, a CI log) it prints a plain line at every tenth of the total and
// one at the end, so logs stay short and readable.
package progress

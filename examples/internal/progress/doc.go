// Package progress shows how an initial sync advances: a Bar draws the
// objects received against the server's estimate of the total, and Follow
// feeds it from a syncer's Progress (runtime.Syncer.Progress), which
// counts and estimates by itself. The demo also counts objects it creates
// with Add.
//
// On a terminal the Bar redraws one line in place; elsewhere (a pipe, a
// file, a CI log) it prints a plain line at every tenth of the total and
// one at the end, so logs stay short and readable.
package progress

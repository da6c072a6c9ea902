// Package driver is the benchmark's machinery, apart from its parts: it
// starts each contender as a child process and talks to it in lines
// (Child, the messages of protocol.go), reads process figures from /proc
// (peak RSS, peak RssAnon, CPU, the test bed's processes, waiting for them
// to go idle),
// shows progress, writes profiles, and turns the children's reports into
// medians (Summarize), ratios against targets (Comparison), tables, the
// machine-readable line and SVG charts. It knows no contender but by name:
// what each part runs, and what its ratios are, is package main's.
package driver

// Package child is the side of the benchmark that runs in each
// contender's own program (bench/internal/cmd/...): it parses the flags
// the parent gives (Args), runs one contender's sync (Main), reports its
// figures to the parent on standard output, and measures what only the
// program itself can (its own peak RSS, the lag of the events it sees,
// the probes of a slow or restarted server). Each contender runs alone
// in its process so that its memory is its own, as its user runs it.
package child

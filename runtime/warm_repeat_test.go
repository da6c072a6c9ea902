package runtime_test

import (
	"strconv"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// TestWarmFailureThatRepeatsGoesCold plays a server (or a proxy in front of
// it) that fails every metadata-only LIST with a 500, while it serves
// everything else, and writes flow: a warm start from a snapshot, and a
// running syncer's warm resync after a 410 Gone, must not retry the LIST
// for ever, never syncing again, but go on cold after the same failure
// came maxWarmFailures times in a row, and sync: the store and the state
// rebuilt from handler calls equal to a quorum LIST, each object of the
// snapshot gone from the server told gone once (the checker's prior
// state), no handler contract broken.
func TestWarmFailureThatRepeatsGoesCold(t *testing.T) {
	srv := testbed.Shared(t)
	for _, tc := range warmResyncs {
		t.Run(tc.name, func(t *testing.T) {
			f := prepare(t, srv, 1000, 256)
			inj := newInjector(t, srv)
			inj.failMeta.Store(true)
			more := func() string { return "metadata-only LISTs made: " + strconv.Itoa(len(inj.metadataLimits())) }
			r := startWarm(t, f, tc.fromSnapshot, inj, testbed.WriterOptions{Rate: writeRate, Population: 200, KeepExisting: true}, more)
			s, c := r.s, r.c
			r.finish(t, f, func(testbed.WriterStats) {
				if n := len(inj.metadataLimits()); n != runtime.MaxWarmFailures {
					t.Errorf("%d metadata-only LISTs, want %d: then the resync goes cold", n, runtime.MaxWarmFailures)
				}
				if n := inj.errs.of(runtime.KindInternal); n != runtime.MaxWarmFailures || c.errors(runtime.KindInternal) == 0 {
					t.Errorf("%d internal errors reported, want each of the %d failed LISTs, told to the handler (%s)", n, runtime.MaxWarmFailures, c)
				}
				if s.Mode() != runtime.ModeWatchList {
					t.Errorf("mode %s, want watchlist: the resync went on cold", s.Mode())
				}
			})
			if tc.fromSnapshot {
				c.checkPriorSettled(t, r.churn.Deleted)
			}
			t.Logf("metadata-only LISTs: %d", len(inj.metadataLimits()))
		})
	}
}

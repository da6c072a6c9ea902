//go:build race

package runtime_test

// raceEnabled: the race detector turns the tiny allocator off and adds
// allocations of its own, so that allocation counts differ from a normal
// build's: the allocation guards skip.
const raceEnabled = true

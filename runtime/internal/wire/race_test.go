//go:build race

package wire

// raceEnabled: the race detector turns the tiny allocator off, so that
// small objects take more than the estimate, which models the allocator
// of a normal build: the tests that compare it with the heap skip.
const raceEnabled = true

//go:build race

package projection

// raceEnabled: the race detector empties sync.Pools at random, so the
// pooled readers allocate.
const raceEnabled = true

//go:build !race

package memsize

const raceEnabled = false

//go:build !race

package golden_test

const raceEnabled = false

// Package size renders byte counts the way the examples print them
// ("21.4MiB", "830.0KiB", "512B") and reads them back, so that the demo
// can compare what an example printed.
package size

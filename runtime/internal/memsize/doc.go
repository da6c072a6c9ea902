// Package memsize estimates the heap bytes a Go value holds, for a store
// that reports what it keeps (runtime.Store.Bytes) without scanning the
// heap.
//
// For[T] compiles a plan of T once: where, at which offsets, T and the
// types it reaches hold strings, slices, pointers, maps and interfaces.
// Sizer.Of then walks a value along that plan with unsafe pointers, no
// reflection but for maps of other than a few common types and for the
// values in interfaces, and adds up the allocations it finds, each rounded
// up to the size class the Go allocator gives it (and its 8-byte header,
// for a pointerful object of more than 512 bytes).
//
// What it counts: the object a pointer T points to, and everything
// reachable from it through pointers, slices (their capacity), strings,
// maps (their groups and tables as Go 1.24's maps lay them out, from their
// length) and interfaces; once per reference, so two pointers to one
// value count it twice (API objects hold no such sharing). What it does
// not count: the memory a value of T itself takes where it is stored (the
// caller's slot), a *time.Location (shared by every time.Time of a zone),
// funcs, chans and unsafe pointers, string data outside the heap (a
// string literal: a TypeMeta's Kind set from a constant is counted as if
// allocated, a few bytes), and the keys of a map[string]any and the
// strings in interfaces that lie in runtime/internal/intern's slabs: the
// keys and repeating values that unstructured objects share, which the
// pool holds, not the object.
//
// Strings that lie one after the other in memory, as the strings of a
// decoder that copies an object's strings into one buffer do, are counted
// as one allocation: one rounding up, not one per string. The walk sees
// them one after the other only in the order of the struct's fields; the
// strings of a map are walked in the map's random order, so strings of a
// shared buffer held in a map are counted each rounded up on its own: an
// overcount of up to one size class step per string (under 25% of its
// length for strings above 128 bytes, up to 16 bytes for shorter ones).
//
// The estimate is within a few percent of what runtime.ReadMemStats sees
// the heap grow by for API objects decoded from the wire
// (memsize_test.go: TestEstimateTracksTheHeap).
package memsize

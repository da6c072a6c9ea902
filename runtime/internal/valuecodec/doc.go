// Package valuecodec writes a Go value to bytes and reads it back exactly:
// the value read is reflect.DeepEqual to the one written.
//
// encoding/json cannot promise that for API types: omitempty drops empty
// lists and maps, which come back nil; resource.Quantity comes back in
// another format; unexported fields are lost. A snapshot of custom
// resources must give back what the server's bytes decoded to, so the
// snapshot of a type without protobuf methods is written with this codec.
//
// What it keeps: every field, exported or not; nil and empty slices and
// maps apart; nil and set pointers apart; time.Time through its
// MarshalBinary (its instant, and its location when that is UTC or Local,
// as time.Time's own decoding restores it); in an `any`, what JSON decodes
// into one (nil, bool, int64, float64, string, []any, map[string]any).
// What it refuses, with an error naming the field's path: any other value
// in an interface (a runtime.Object in a RawExtension is behaviour, not
// data), a func, chan or unsafe pointer that is not nil, a cycle (a
// pointer, map or slice that holds itself: ErrCycle), and nesting deeper
// than 65,536 steps (ErrTooDeep), each field, element, map entry, pointer
// and interface a step. Nothing a server serves is refused: JSON nested
// 10,000 levels deep (what kube-apiserver and encoding/json accept) is at
// most 40,000 steps, and nothing decoded from JSON holds a cycle. Cycles
// are looked for only past 1,000 steps, so that writing the values of
// every day costs nothing for it. Two pointers to one value are read back
// as two values.
//
// Reading is bounded: a length or count is checked against the bytes left
// before anything is allocated for it, so that n bytes of input never
// allocate more than a small multiple of n, whatever they claim. The
// encoding carries no type information: Fingerprint tells the type a
// reader expects, to be stored and compared by the caller.
package valuecodec

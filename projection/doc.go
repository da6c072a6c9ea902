// Package projection holds what the decoders syncer-gen generates for
// projected types call: they read only the fields a program keeps, straight
// off the wire, and skip the rest without allocating.
//
//   - ProtoReader walks the fields of a protobuf message with
//     google.golang.org/protobuf/encoding/protowire, skipping by length
//     what the decoder does not keep;
//   - JSONReader walks a JSON value with the validating tokenizer of
//     github.com/go-json-experiment/json/jsontext, whose state is reused
//     from one object to the next;
//   - FullProtobuf and FullJSON are the fallback: whatever a generated
//     decoder does not understand (an unexpected wire type, malformed or
//     duplicate-key JSON, a value of another type, a number out of range)
//     is handed to the full decoder of the upstream type and projected,
//     never guessed, so that the result is exactly the full decoder's,
//     its error included.
//
// The readers' errors are sticky: once a read fails, every later read is a
// no-op and Err (Close) returns the first error, so that generated code
// reads on without checking each step and falls back once, at the end.
//
// Readers copy out what they return (strings) and never keep a sub-slice
// of their input, which is a frame buffer that the runtime reuses.
//
// The package imports nothing of the runtime; package projectiontest
// holds what generated tests call to prove a projection's decoders.
package projection

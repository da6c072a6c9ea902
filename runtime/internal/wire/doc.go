// Package wire reads what kube-apiserver sends a Syncer, in place and
// straight into the Syncer's typed struct: WatchEvent frames in protobuf
// and JSON, objects of the Syncer's own kind, and the pages of a
// metadata-only LIST. Unstructured objects and their LIST pages are
// decoded into the maps apimachinery's unstructured decoder makes, their
// keys and the string values that repeat from object to object shared
// (runtime/internal/intern), each list made to its length (unstructured.go).
//
// What it promises:
//
//   - The same result as apimachinery's decoders: every fast path is tested
//     against them (objects, WatchEvents, whole streams, metadata pages,
//     unstructured objects and lists), and fuzzed; anything unusual (another kind, a Status, a malformed or
//     uncommon frame) goes to the wrapped apimachinery serializer.
//   - No copy of an object before it is decoded: a WatchEvent's
//     Object.Raw points into the frame, which the caller decodes before it
//     gives the frame's buffer back (Frames.Release) to a pool that every
//     stream reads its larger frames into (frames.go).
//   - Malformed input is an error, never a panic: JSON nesting is bounded,
//     protobuf fields are checked before they are read.
//
// It knows nothing of sync semantics: NewDecoding wraps the negotiated
// serializer of a REST client; ReadMetadataPage reads a page's bytes.
package wire

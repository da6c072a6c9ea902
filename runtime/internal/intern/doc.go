// Package intern keeps one copy of the strings that many decoded objects
// share: the keys of unstructured objects (every ConfigMap has "metadata",
// "name", "managedFields", "f:data"...) and the values that repeat from one
// object to the next under a key ("v1", "ConfigMap", a namespace, a field
// manager). Decoded by encoding/json, each object holds its own copy of
// each, a few hundred bytes an object that a cache of thousands keeps.
//
// The strings live in slabs that a Pool allocates and never frees, and a
// pool holds at most its max strings, none longer than MaxLen bytes: the
// process's pool (KeyOf) pays at most about MaxStrings*MaxLen bytes for
// them, whatever it decodes; once full, it interns nothing more and
// decoders allocate as before. Shared tells whether a string lies in a
// slab of any pool, so that what a store holds is counted without them
// (runtime/internal/memsize). Everything is safe for concurrent use.
package intern

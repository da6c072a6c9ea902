// Package writelog remembers a program's own writes until the store it
// reads from has seen them, so that a read can wait for exactly the writes
// that can change its answer.
//
// What it promises:
//
//   - A write is in flight from Begin until its end function is called
//     (the server answered, or the request failed); Flights returns the
//     writes in flight when it is called, and a write begun after it is
//     never among them.
//   - A write answered is Recorded at the end of its key's chain, made
//     from the write before it in the chain (a write's "before" is the
//     answer to the program's previous write of the object, not what a
//     store that is behind holds), with whatever the caller needs to tell
//     whether its store has seen it.
//   - A chain is seen when its last write is, and then every write in it
//     is: it stays Pending, whole, until a Prune whose test says its last
//     write was seen. A write is never forgotten before it is seen, so
//     "seen" never goes back.
//   - Pending gives each key's chain in the order its writes were
//     recorded; the log holds no lock while it calls the test.
//   - The log costs memory in proportion to the writes not yet seen (and
//     those seen since the last prune), never to the writes ever made:
//     Record prunes by itself when the log has doubled since it last did.
//
// It knows nothing of objects, resourceVersions or syncers: the runtime
// package decides what a write is and when a store has seen it.
package writelog

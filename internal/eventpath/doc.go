// Package eventpath feeds a Syncer a WatchList stream from memory, with no
// server, for the benchmarks and allocation guards of the event path: each
// event is framed as kube-apiserver frames it (protobuf or JSON), read by
// the Syncer's own stream through its REST client, decoded, stored and
// dispatched to a handler, as a live event is. Nothing but the transport
// is fake.
package eventpath

// Command floor is the bench's floors of the WatchList stream, each
// contender a way of reading it (see bench/doc.go): floor-read reads it to
// the end bookmark looking only at frames and event types, floor-decode
// also decodes each object into its typed struct (k8s.io/api) and drops
// it, keep-all keeps each in a plain map. It links no client of
// Kubernetes but its transport (client-go's rest, for TLS and auth) and
// the API types it decodes. The parent runs it as bench/internal/child
// says.
package main

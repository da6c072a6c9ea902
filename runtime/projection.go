package runtime

// The runtime links the package that the decoders of projected syncers
// (+syncer-gen:keep) call, so that a module whose go.mod and go.sum cover
// its syncers covers its projections too: the first keep marker added to a
// project builds with no `go mod tidy` first. Package projection imports
// github.com/go-json-experiment/json, which nothing else of a syncer does.
import _ "github.com/syncer-gen/syncer-gen/projection"

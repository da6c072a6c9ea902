package ctrlsyncer

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NoOlderThan is an option of Get and List: the read answers from a store
// that holds the server's state of at most that long ago, waiting until it
// does, or fails with a *runtime.LagError that says how far behind it is
// (runtime.Syncer.WaitNoOlderThan). 0 is a consistent read: the server's
// state when the read began. It composes with read-your-own-writes. A
// read of a type no syncer serves (the Manager's cache, or its client)
// ignores it.
//
//	err := r.Get(ctx, key, &widget, ctrlsyncer.NoOlderThan(2*time.Second))
type NoOlderThan time.Duration

// ApplyToGet implements client.GetOption: the Client reads it.
func (NoOlderThan) ApplyToGet(*client.GetOptions) {}

// ApplyToList implements client.ListOption: the Client reads it.
func (NoOlderThan) ApplyToList(*client.ListOptions) {}

var (
	_ client.GetOption  = NoOlderThan(0)
	_ client.ListOption = NoOlderThan(0)
)

// WithReadsNoOlderThan makes every Get and List of a type the Client's
// syncers serve a read NoOlderThan(d), unless the call gives its own.
func WithReadsNoOlderThan(d time.Duration) ClientOption {
	return func(o *clientOptions) { o.noOlderThan = &d }
}

// boundOf returns the bound of a read with opts: its own NoOlderThan, or
// the Client's default.
func boundOf[O any](def *time.Duration, opts []O) (time.Duration, bool) {
	for i := len(opts) - 1; i >= 0; i-- {
		if b, ok := any(opts[i]).(NoOlderThan); ok {
			return time.Duration(b), true
		}
	}
	if def != nil {
		return *def, true
	}
	return 0, false
}

// fresh waits, for a read with opts of kind k, for the bound it asks for.
func fresh[O any](ctx context.Context, c *Client, k kind, opts []O) error {
	d, ok := boundOf(c.noOlderThan, opts)
	if !ok {
		return nil
	}
	s := c.reader.storeOf(k)
	if s == nil {
		return nil
	}
	return s.syncer.WaitNoOlderThan(ctx, d)
}

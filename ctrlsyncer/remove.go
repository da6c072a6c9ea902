package ctrlsyncer

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RemoveSyncer removes the syncer that serves obj's type, as the Manager's
// cache.RemoveInformer removes an informer: the syncer stops
// (syncerset.Remove: its Run returns, its handlers end, so that the
// sources For and Owns made of it deliver nothing more, and its store's
// memory is given back), and reads of the type go to the Manager's client
// from then on, as for a type no syncer serves (the cache, after
// RemoveInformer, starts a new informer for the next read of the type
// unless ReaderFailOnMissingInformer). For, Owns or Add of the type then
// make a new syncer, with the indexes FieldIndexer declared. A type no
// syncer serves is no error, as in RemoveInformer. RemoveSyncer returns
// once the syncer has stopped, or with ctx's error when ctx ends first (a
// handler blocked in a call).
func (c *Client) RemoveSyncer(ctx context.Context, obj client.Object) error {
	t := kindOf(obj)
	c.mu.Lock()
	s, ok := c.served[t]
	if ok {
		delete(c.served, t)
		if s.projected {
			c.projections--
		}
		c.reader.unregister(t)
	}
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return s.remove(ctx)
}

// Unregister stops serving obj's type through r: reads of it fail from
// then on, as for a type never registered, and r no longer holds the
// syncer's store. The syncer itself runs on: stop it with its Close.
func (r *Reader) Unregister(obj client.Object) { r.unregister(kindOf(obj)) }

func (r *Reader) unregister(t kind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byType, t)
}

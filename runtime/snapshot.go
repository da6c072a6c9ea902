package runtime

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/syncer-gen/syncer-gen/runtime/internal/snapshotfile"
	"github.com/syncer-gen/syncer-gen/runtime/internal/valuecodec"
)

// snapshotHeader names what this Syncer's snapshots belong to.
func (s *Syncer[T]) snapshotHeader() snapshotfile.Header {
	t := reflect.TypeFor[T]().Elem()
	return snapshotfile.Header{
		Server:        s.src.server,
		Group:         s.res.Group,
		Version:       s.res.Version,
		Resource:      s.res.Resource,
		Namespace:     s.cfg.namespace,
		LabelSelector: s.cfg.labelSelector,
		FieldSelector: s.cfg.fieldSelector,
		ShardSelector: shardString(s.cfg.shard),
		Type:          t.PkgPath() + "." + t.Name(),
		TypeHash:      valuecodec.Fingerprint(t),
		Transforms:    len(s.cfg.transforms),
		Saved:         time.Now().UTC(),
	}
}

// loaded is a snapshot read for a warm start: its objects by key and the
// resourceVersion they are the server's state at. objs is nil when there
// is no snapshot to use.
type loaded[T Object] struct {
	objs map[Key]sized[T]
	rv   string
}

// sized is an object and its size in the store (Store.size), found while
// the snapshot loads (on every core, in parallel with the metadata-only
// LIST) rather than when the object is restored, once the LIST is in:
// sizing every object was a third of what restoring them cost (issue 44).
type sized[T Object] struct {
	obj   T
	bytes int64
}

// loadSnapshot reads the snapshot for the first sync. A missing one is a
// first run; one that cannot be used is logged, and the sync is cold.
func (s *Syncer[T]) loadSnapshot() loaded[T] {
	log := s.cfg.logger.WithValues("resource", s.res.String(), "path", s.cfg.snapshotPath)
	started := time.Now()
	codec := codecFor[T]()
	objs, hdr, err := snapshotfile.Read(s.cfg.snapshotPath, s.snapshotHeader(), snapshotfile.Codec[sized[T]]{
		Name: codec.Name,
		Decode: func(b []byte) (sized[T], error) { // on every core: sized there too
			o, err := codec.Decode(b)
			if err != nil {
				return sized[T]{}, err
			}
			return sized[T]{o, s.cache.store.size(o)}, nil
		},
	})
	switch {
	case errors.Is(err, snapshotfile.ErrMissing): // removed since Run looked
		log.V(1).Info("no snapshot yet; starting cold")
		return loaded[T]{}
	case err != nil:
		log.Info("snapshot not used; starting cold", "err", err.Error())
		return loaded[T]{}
	}
	byKey := make(map[Key]sized[T], len(objs))
	for _, o := range objs {
		byKey[KeyOf(o.obj)] = o
	}
	log.V(1).Info("snapshot loaded", "objects", len(objs), "resourceVersion", hdr.ResourceVersion, "saved", hdr.Saved,
		"took", time.Since(started).Round(time.Millisecond))
	return loaded[T]{objs: byKey, rv: hdr.ResourceVersion}
}

// saveSnapshot writes the store to the snapshot file when it holds a
// consistent state of the server; saved is false when it did not. An
// object that cannot be written (a transform made a cycle in it, or put
// in an interface what JSON does not decode into) is left out and the
// rest saved: each is logged, and counted by metrics that implement
// SnapshotMetrics; the next start lists it from the server (see
// warmSync).
func (s *Syncer[T]) saveSnapshot() (saved bool, err error) {
	s.saving.Lock()
	defer s.saving.Unlock()
	objs, rv, ok := s.cache.snapshot(s.part)
	if !ok {
		return false, nil
	}
	started := time.Now()
	hdr := s.snapshotHeader()
	hdr.ResourceVersion = rv
	skipped, err := snapshotfile.Write(s.cfg.snapshotPath, hdr, codecFor[T](), objs)
	for _, sk := range skipped {
		s.cfg.logger.Error(sk.Err, "object not saved in the snapshot; the next start lists it from the server",
			"resource", s.res.String(), "path", s.cfg.snapshotPath, "object", KeyOf(objs[sk.Index]).String())
	}
	if m, ok := s.cfg.metrics.(SnapshotMetrics); ok && len(skipped) > 0 && err == nil {
		m.ObjectsNotSaved(len(skipped))
	}
	if err != nil {
		return false, err
	}
	s.cfg.logger.V(1).Info("snapshot saved", "resource", s.res.String(), "path", s.cfg.snapshotPath,
		"objects", len(objs)-len(skipped), "notSaved", len(skipped), "resourceVersion", rv,
		"took", time.Since(started).Round(time.Millisecond))
	return true, nil
}

// saveSnapshots saves the snapshot every snapshot interval until ctx is
// done. A failure is logged and tried again at the next interval.
func (s *Syncer[T]) saveSnapshots(ctx context.Context) {
	t := time.NewTicker(s.cfg.snapshotEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.saveSnapshot(); err != nil {
				s.cfg.logger.Error(err, "saving the snapshot", "resource", s.res.String(), "path", s.cfg.snapshotPath)
			}
		}
	}
}

package runtime

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/watch"
)

// A sharded Syncer keeps one shard of a resource: the objects whose
// metadata.uid (or metadata.namespace) hashes, by 64-bit FNV-1a, into the
// ranges of a sharding.Selector (KEP-5866). kube-apiserver 1.36+ with the
// ShardedListAndWatch feature gate sends only those objects; a server
// without it ignores the selector silently and sends everything. The
// Syncer asks the server for the shard on every request and, whatever the
// server does, keeps only the shard's objects: no other object reaches the
// store, a handler or the snapshot. ShardMode tells whether the server
// filtered (a LIST's metadata.shardInfo echoed the selector asked for) or
// this process did (see noteShard for an echo of another selector).

// ShardMode tells who keeps a sharded Syncer's objects to its shard.
type ShardMode int32

const (
	ShardNone     ShardMode = iota // not sharded
	ShardUnknown                   // sharded; the server has not answered a LIST yet
	ShardServed                    // the server sends only the shard's objects
	ShardFiltered                  // the server sends every object (or answered for another shard); the Syncer drops the others
)

func (m ShardMode) String() string {
	switch m {
	case ShardNone:
		return "none"
	case ShardUnknown:
		return "unknown"
	case ShardServed:
		return "served"
	case ShardFiltered:
		return "filtered"
	}
	return fmt.Sprintf("ShardMode(%d)", int32(m))
}

// WithShard makes the Syncer keep shard index of count equal shards of
// the resource, by the hash of each object's UID: every object is in
// exactly one of the count shards. index counts from 0.
func WithShard(index, count int) Option {
	return func(c *config) {
		if count < 1 || index < 0 || index >= count {
			c.shardErr = fmt.Errorf("WithShard(%d, %d): want 0 <= index < count", index, count)
			return
		}
		c.shard, c.shardErr = sharding.NewSelector(ShardRange("object.metadata.uid", index, count)), nil
		c.shardName = fmt.Sprintf("%d/%d", index, count)
	}
}

// ShardName returns how the options name the shard they select, for labels
// and messages: "1/3" for WithShard(1, 3), the selector for
// WithShardSelector, "" for none.
func ShardName(opts ...Option) string {
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	return c.shardName
}

// WithShardSelector makes the Syncer keep the objects that sel selects,
// e.g. ranges of the hash of their namespace, so that an owner and what it
// owns in the same namespace are in the same shard.
func WithShardSelector(sel sharding.Selector) Option {
	return func(c *config) { c.shard, c.shardErr, c.shardName = sel, nil, shardString(sel) }
}

// ShardRange returns the index-th of count equal ranges of the 64-bit hash
// of the field key ("object.metadata.uid" or "object.metadata.namespace").
func ShardRange(key string, index, count int) sharding.ShardRangeRequirement {
	return sharding.ShardRangeRequirement{Key: key, Start: rangeBound(index, count), End: rangeBound(index+1, count)}
}

// rangeBound returns floor(i * 2^64 / n) as the server writes hashes: 0x
// and 16 lowercase hex digits; 2^64 itself for i == n.
func rangeBound(i, n int) string {
	if i >= n {
		return "0x10000000000000000"
	}
	q, _ := bits.Div64(uint64(i), 0, uint64(n))
	return fmt.Sprintf("0x%016x", q)
}

// checkShard reports a selector the server would refuse (with a 500):
// fields other than the UID and the namespace, mixed fields, bounds that
// are not 0x-prefixed lowercase hex of at most 17 digits, or empty ranges.
func checkShard(sel sharding.Selector) error {
	reqs := sel.Requirements()
	if len(reqs) == 0 {
		return errors.New("WithShardSelector: the selector selects everything; leave the option out")
	}
	var errs []error
	for i, r := range reqs {
		if r.Key != "object.metadata.uid" && r.Key != "object.metadata.namespace" {
			errs = append(errs, fmt.Errorf("range %d: field %q; want object.metadata.uid or object.metadata.namespace", i, r.Key))
		}
		if r.Key != reqs[0].Key {
			errs = append(errs, fmt.Errorf("range %d: field %q, but range 0 hashes %q: one field for all", i, r.Key, reqs[0].Key))
		}
		for _, b := range []string{r.Start, r.End} {
			if !hexBound(b) {
				errs = append(errs, fmt.Errorf("range %d: bound %q; want 0x and 1 to 17 lowercase hex digits", i, b))
			}
		}
		if !sharding.HexLess(r.Start, r.End) {
			errs = append(errs, fmt.Errorf("range %d: start %s is not below end %s", i, r.Start, r.End))
		}
	}
	return errors.Join(errs...)
}

func hexBound(s string) bool {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || h == "" || len(h) > 17 {
		return false
	}
	return strings.Trim(h, "0123456789abcdef") == ""
}

// shardString returns sel's wire form, "" for none.
func shardString(sel sharding.Selector) string {
	if sel == nil {
		return ""
	}
	return sel.String()
}

// shardModes remembers, per server and resource, whether the server
// filters shards, as modes remembers WatchList: a sharded Syncer of a
// resource that knows it filters here says so from its first request.
var shardModes sync.Map // source key -> ShardMode

// inShardEstimate scales the server's count of the objects of the
// selection to the shard's, when the server counted every object: by the
// share of the hash space the shard's UID ranges cover (a namespace's
// objects are not spread evenly: no estimate).
func (s *source[T]) inShardEstimate(n int64) (int64, bool) {
	if s.cfg.shard == nil || ShardMode(s.shardMode.Load()) == ShardServed {
		return n, true
	}
	var share float64
	for _, r := range s.cfg.shard.Requirements() {
		if r.Key != "object.metadata.uid" {
			return 0, false
		}
		share += (hexValue(r.End) - hexValue(r.Start)) / 0x1p64
	}
	return int64(float64(n) * share), true
}

func hexValue(h string) float64 {
	v, _ := strconv.ParseFloat(h+"p0", 64) // hex digits after 0x: checkShard made sure
	return v
}

// foreign tells whether an object event is of an object outside the
// Syncer's shard, to be dropped: every object of a server that ignores
// the selector, and, as a check on proxies that drop it from some
// requests only, whatever else comes.
func (s *Syncer[T]) foreign(typ watch.EventType, obj Object) bool {
	if s.cfg.shard == nil || typ == watch.Bookmark || typ == watch.Error {
		return false
	}
	ok, err := s.cfg.shard.Matches(obj)
	return err != nil || !ok
}

// foreignListed is foreign for an item of the metadata-only LIST.
func (s *Syncer[T]) foreignListed(l listed) bool {
	if s.cfg.shard == nil {
		return false
	}
	return s.foreign(watch.Added, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: l.key.Namespace, Name: l.key.Name, UID: l.uid}})
}

// ShardMode tells who keeps a sharded Syncer to its shard: the server, or
// the Syncer itself (see WithShard); ShardNone when it is not sharded.
func (s *Syncer[T]) ShardMode() ShardMode {
	if s.cfg.shard == nil || s.src == nil {
		return ShardNone
	}
	return ShardMode(s.src.shardMode.Load())
}

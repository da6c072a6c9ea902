package ctrlsyncer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Shadow reads: the switch checked on the user's own cluster before it is
// made. With WithShadowReads, the Client's reads of the types its syncers
// serve are answered by the Manager's cache, as if the Client were not
// there, and a share of them is read again from the syncers, after the
// answer, off the reconciler's goroutine, and compared.

// WithShadowReads makes the Client a canary of the switch: its reads of
// the types its syncers serve are answered by the Manager's client and
// cache (the reconciler reads what it read before, and its writes reach
// the Manager's client as before, its read-your-own-writes included),
// while the syncers run beside the cache. A share rate (0 < rate <= 1; 1
// for every read) of those reads is read again from the syncers, waiting
// for the Client's own writes as a switched read would, and compared: the
// same objects (namespace, name, UID and resourceVersion, and content
// where the resourceVersions are equal), the same error class. An object
// at another resourceVersion, or on one side only, that the other side
// reaches within lagBound (0: 5s) is lag, not a difference. Each
// comparison counts in syncer_shadow_reads_total{resource, result} (match,
// lag, difference, skipped: more than a few comparisons in flight) on
// controller-runtime's metrics registry, and in Client.ShadowReads; the
// first differences are logged with both sides. Memory is the two caches'.
// The events of For and Owns come from the syncers either way.
func WithShadowReads(rate float64, lagBound time.Duration) ClientOption {
	return func(o *clientOptions) {
		if lagBound <= 0 {
			lagBound = 5 * time.Second
		}
		o.shadow = &shadow{rate: rate, lagBound: lagBound, slots: make(chan struct{}, shadowInFlight)}
	}
}

// ShadowResult is how one shadow read compared.
type ShadowResult string

// The results of shadow reads.
const (
	ShadowMatched  ShadowResult = "match"      // the same answer
	ShadowLagged   ShadowResult = "lag"        // another answer, which the side behind reached within the bound
	ShadowDiffered ShadowResult = "difference" // another answer, not reached within the bound
	ShadowSkipped  ShadowResult = "skipped"    // not compared: too many comparisons in flight
)

// ShadowReport is what the shadow reads found so far.
type ShadowReport struct {
	// Counts by result, over every resource.
	Counts map[ShadowResult]int64
	// Differences are the first differences found (at most 20).
	Differences []ShadowDifference
}

// ShadowDifference is one read whose answers differed past the lag bound.
type ShadowDifference struct {
	Resource string // e.g. "configmaps/v1"
	Read     string // e.g. "get ns/name", "list ns"
	Object   string // namespace/name of the object that differs
	Cache    string // what the Manager's cache answered of it
	Syncers  string // what the syncers answered of it
}

func (d ShadowDifference) String() string {
	return fmt.Sprintf("%s %s: %s: the cache has %s, the syncers %s", d.Resource, d.Read, d.Object, d.Cache, d.Syncers)
}

// ShadowReads returns what the Client's shadow reads found so far (see
// WithShadowReads); zero counts without it.
func (c *Client) ShadowReads() ShadowReport {
	out := ShadowReport{Counts: map[ShadowResult]int64{}}
	if c.shadow == nil {
		return out
	}
	for _, r := range []ShadowResult{ShadowMatched, ShadowLagged, ShadowDiffered, ShadowSkipped} {
		out.Counts[r] = c.shadow.counts[r].Load()
	}
	c.shadow.mu.Lock()
	defer c.shadow.mu.Unlock()
	out.Differences = append(out.Differences, c.shadow.diffs...)
	return out
}

// shadowInFlight bounds the comparisons running at once; a read sampled
// beyond it is skipped, never waited for.
const shadowInFlight = 8

// shadowLogged is how many differences are logged, and kept.
const shadowLogged = 20

type shadow struct {
	rate     float64
	lagBound time.Duration
	slots    chan struct{}
	log      logr.Logger

	counts map[ShadowResult]*atomic.Int64
	mu     sync.Mutex
	diffs  []ShadowDifference
}

var (
	shadowReadsOnce sync.Once
	shadowReads     = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "syncer_shadow_reads_total",
		Help: "Reads of the Manager's cache compared with the same read from the syncers (ctrlsyncer.WithShadowReads), by result.",
	}, []string{"resource", "result"})
)

// start readies s for the Client's reads.
func (s *shadow) start(log logr.Logger) {
	s.log = log.WithName("shadow")
	s.counts = map[ShadowResult]*atomic.Int64{}
	for _, r := range []ShadowResult{ShadowMatched, ShadowLagged, ShadowDiffered, ShadowSkipped} {
		s.counts[r] = new(atomic.Int64)
	}
	shadowReadsOnce.Do(func() {
		if err := crmetrics.Registry.Register(shadowReads); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				s.log.Error(err, "syncer_shadow_reads_total is not served")
			}
		}
	})
}

// count counts one comparison of resource.
func (s *shadow) count(resource string, r ShadowResult) {
	s.counts[r].Add(1)
	shadowReads.WithLabelValues(resource, string(r)).Inc()
}

// side is what one side answered of a read: its objects by key, or its
// error.
type side struct {
	objs map[client.ObjectKey]client.Object
	err  error
}

func sideOf(err error, objs ...client.Object) side {
	s := side{objs: map[client.ObjectKey]client.Object{}, err: err}
	if apierrors.IsNotFound(err) {
		s.err = nil // absent: compared as an object missing
	}
	for _, o := range objs {
		s.objs[client.ObjectKeyFromObject(o)] = o
	}
	return s
}

// get answers from the cache and compares a share of the reads.
func (s *shadow) get(ctx context.Context, c *Client, key client.ObjectKey, obj client.Object, opts []client.GetOption) error {
	err := c.Client.Get(ctx, key, obj, opts...)
	if err != nil && !apierrors.IsNotFound(err) || rand.Float64() >= s.rate {
		return err // a read the cache could not answer says nothing of the syncers
	}
	var cached []client.Object
	if err == nil {
		cached = []client.Object{obj.DeepCopyObject().(client.Object)}
	}
	k := kindOf(obj)
	cacheGet, syncersGet := objectReads(c, k, opts)
	s.compare(c.resourceOf(k), "get "+key.String(), sideOf(err, cached...), func(ctx context.Context) side {
		o, err := syncersGet(ctx, key)
		if err != nil || o == nil {
			return sideOf(err)
		}
		return sideOf(nil, o)
	}, cacheGet, syncersGet)
	return err
}

// list answers from the cache and compares a share of the reads.
func (s *shadow) list(ctx context.Context, c *Client, k kind, list client.ObjectList, opts []client.ListOption) error {
	err := c.Client.List(ctx, list, opts...)
	if err != nil || rand.Float64() >= s.rate {
		return err
	}
	items := func(l client.ObjectList) []client.Object {
		objs, _ := meta.ExtractList(l)
		out := make([]client.Object, 0, len(objs))
		for _, o := range objs {
			out = append(out, o.DeepCopyObject().(client.Object))
		}
		return out
	}
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	elem := reflect.TypeOf(list).Elem()
	newList := func() client.ObjectList {
		l := reflect.New(elem).Interface().(client.ObjectList)
		l.GetObjectKind().SetGroupVersionKind(list.GetObjectKind().GroupVersionKind())
		return l
	}
	cacheGet, syncersGet := objectReads(c, k, nil)
	read := "list"
	if lo.Namespace != "" {
		read += " " + lo.Namespace
	}
	if lo.LabelSelector != nil && !lo.LabelSelector.Empty() {
		read += " " + lo.LabelSelector.String()
	}
	s.compare(c.resourceOf(k), read, sideOf(nil, items(list)...), func(ctx context.Context) side {
		l := newList()
		if err := c.syncersList(ctx, l, opts...); err != nil {
			return sideOf(err)
		}
		return sideOf(nil, items(l)...)
	}, cacheGet, syncersGet)
	return err
}

// objectRead reads one object from one side: nil when it has none.
type objectRead func(context.Context, client.ObjectKey) (client.Object, error)

// objectReads returns the reads of one object of kind k from the cache
// (the Manager's client) and from the syncers, with opts.
func objectReads(c *Client, k kind, opts []client.GetOption) (cache, syncers objectRead) {
	read := func(get func(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error) objectRead {
		return func(ctx context.Context, key client.ObjectKey) (client.Object, error) {
			o := reflect.New(k.t.Elem()).Interface().(client.Object)
			if !k.gvk.Empty() {
				o.GetObjectKind().SetGroupVersionKind(k.gvk)
			}
			switch err := get(ctx, key, o, opts...); {
			case apierrors.IsNotFound(err):
				return nil, nil
			case err != nil:
				return nil, err
			}
			return o, nil
		}
	}
	return read(c.Client.Get), read(c.syncersGet)
}

// compare reads the syncers' side (in the background, once a slot is
// free) and compares it with the cache's; each object that differs is
// read again from both, one at a time, until the side behind reaches the
// other or lagBound passes.
func (s *shadow) compare(resource, read string, cache side, syncers func(context.Context) side, cacheGet, syncersGet objectRead) {
	select {
	case s.slots <- struct{}{}:
	default:
		s.count(resource, ShadowSkipped)
		return
	}
	go func() {
		defer func() { <-s.slots }()
		ctx, cancel := context.WithTimeout(context.Background(), s.lagBound+10*time.Second)
		defer cancel()
		other := syncers(ctx)
		if cache.err != nil || other.err != nil {
			if (cache.err == nil) != (other.err == nil) {
				s.differ(resource, read, ShadowDifference{Object: "(the read)", Cache: describeErr(cache.err), Syncers: describeErr(other.err)})
				return
			}
			s.count(resource, ShadowMatched)
			return
		}
		result := ShadowMatched
		keys := map[client.ObjectKey]bool{}
		for k := range cache.objs {
			keys[k] = true
		}
		for k := range other.objs {
			keys[k] = true
		}
		deadline := time.Now().Add(s.lagBound)
		for k := range keys {
			a, b := cache.objs[k], other.objs[k]
			if agree(a, b) {
				continue
			}
			if d, differs := s.settle(ctx, deadline, k, a, b, cacheGet, syncersGet); differs {
				s.differ(resource, read, d)
				return
			}
			result = ShadowLagged
		}
		s.count(resource, result)
	}()
}

// agree tells whether two answers of one object agree: both absent, or at
// one resourceVersion with the same content.
func agree(a, b client.Object) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.GetUID() == b.GetUID() && a.GetResourceVersion() == b.GetResourceVersion() && equality.Semantic.DeepEqual(a, b)
}

// settle reads k again from both sides until they agree (lag) or the
// deadline passes (a difference): the side behind must reach the
// resourceVersion the other had, or both lose the object. One
// resourceVersion with another content is a difference at once.
func (s *shadow) settle(ctx context.Context, deadline time.Time, k client.ObjectKey, a, b client.Object, cacheGet, syncersGet objectRead) (ShadowDifference, bool) {
	d := ShadowDifference{Object: k.String(), Cache: describe(a), Syncers: describe(b)}
	if a != nil && b != nil && a.GetUID() == b.GetUID() && a.GetResourceVersion() == b.GetResourceVersion() {
		return d, true // same version, other content
	}
	target := newest(a, b)
	for {
		ca, errA := cacheGet(ctx, k)
		cb, errB := syncersGet(ctx, k)
		if errA == nil && errB == nil && (reached(ca, target) && reached(cb, target) || ca == nil && cb == nil) {
			return d, false
		}
		if time.Now().After(deadline) {
			d.Cache, d.Syncers = describe(ca), describe(cb)
			return d, true
		}
		select {
		case <-ctx.Done():
			return d, true
		case <-time.After(100 * time.Millisecond): // the next look at two caches that are moving
		}
	}
}

// newest is the later of two answers of an object by resourceVersion (nil
// when neither has it).
func newest(a, b client.Object) client.Object {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	if cmp, err := resourceversion.CompareResourceVersion(a.GetResourceVersion(), b.GetResourceVersion()); err == nil && cmp < 0 {
		return b
	}
	return a
}

// reached tells whether o is target's version or later (another UID
// under the name counts: the object moved on).
func reached(o, target client.Object) bool {
	if o == nil || target == nil {
		return o == nil && target == nil
	}
	if o.GetUID() != target.GetUID() {
		return true
	}
	cmp, err := resourceversion.CompareResourceVersion(o.GetResourceVersion(), target.GetResourceVersion())
	return err == nil && cmp >= 0
}

func describe(o client.Object) string {
	if o == nil {
		return "nothing"
	}
	return fmt.Sprintf("uid %s at resourceVersion %s", o.GetUID(), o.GetResourceVersion())
}

func describeErr(err error) string {
	if err == nil {
		return "an answer"
	}
	return "the error " + err.Error()
}

// differ counts and keeps (and logs) a difference.
func (s *shadow) differ(resource, read string, d ShadowDifference) {
	s.count(resource, ShadowDiffered)
	d.Resource, d.Read = resource, read
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.diffs) < shadowLogged {
		s.diffs = append(s.diffs, d)
		s.log.Info("the syncers answered a read otherwise than the Manager's cache, past the lag bound", "difference", d.String())
	}
}

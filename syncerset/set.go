package syncerset

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sync"

	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/rest"
)

// Set runs syncers together. Create it with New, add syncers with Add (or
// the generated XSyncerIn functions), then Start and WaitForSync. Its
// methods are safe for concurrent use.
type Set struct {
	cfg     *rest.Config
	client  *http.Client
	opts    options
	mu      sync.Mutex
	members map[string]*member
	order   []*member // in the order added
	ctx     context.Context
	running sync.WaitGroup
}

// member is one syncer of the set, whatever its type.
type member struct {
	key    string
	name   string // the resource, and its shard if sharded: for metrics and errors
	typ    reflect.Type
	syncer syncer
	any    any // the *runtime.Syncer[T], for Add to return
}

// syncer is what the set needs of a *runtime.Syncer[T].
type syncer interface {
	Run(ctx context.Context) error
	HasSynced() bool
	WaitForSync(ctx context.Context) error
	LastError() *runtime.SyncError
	Progress() runtime.Progress
	Resource() runtime.Resource
}

// New returns an empty set whose syncers talk to the server of cfg through
// one shared HTTP client.
func New(cfg *rest.Config, opts ...Option) (*Set, error) {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("syncerset.New: %w", err)
	}
	s := &Set{cfg: cfg, client: client, members: map[string]*member{}}
	for _, o := range opts {
		o(&s.opts)
	}
	return s, nil
}

// HTTPClient returns the client the set's syncers share, e.g. for the
// typed clientset of a controller that writes what it reads (with
// kubernetes.NewForConfigAndClient), so that it shares the connection too.
func (s *Set) HTTPClient() *http.Client { return s.client }

// Add returns the set's syncer of T for res with opts, creating it on the
// first request. The set's default options (WithDefaults) come before opts.
// A syncer added after Start is started at once. Asking again for res with
// the same type and options (runtime.OptionsKey) returns the same syncer;
// another type (a projection, PartialObjectMetadata, Unstructured) of the
// same resource is another syncer.
func Add[T runtime.Object](s *Set, res runtime.Resource, opts ...runtime.Option) (*runtime.Syncer[T], error) {
	opts = append(append([]runtime.Option{}, s.opts.defaults...), opts...)
	typ := reflect.TypeFor[T]()
	key := typ.String() + " " + res.String() + " " + runtime.OptionsKey(opts...)

	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.members[key]; ok {
		return m.any.(*runtime.Syncer[T]), nil
	}
	own := []runtime.Option{runtime.WithHTTPClient(s.client)}
	if s.opts.metrics != nil {
		own = append(own, runtime.WithMetrics(s.opts.metrics(name(res, typ, opts))))
	}
	sy, err := runtime.New[T](s.cfg, res, append(own, opts...)...)
	if err != nil {
		return nil, err
	}
	m := &member{key: key, name: name(res, typ, opts), typ: typ, syncer: sy, any: sy}
	s.members[key] = m
	s.order = append(s.order, m)
	if s.ctx != nil {
		s.run(m)
	}
	return sy, nil
}

// name names the syncer of res with opts, of objects of type typ: the
// resource, the type when it is not the resource's kind (a projection,
// PartialObjectMetadata, Unstructured), and its shard (runtime.ShardName)
// when sharded, so that the syncers of one resource have metrics and
// errors of their own.
func name(res runtime.Resource, typ reflect.Type, opts []runtime.Option) string {
	n := res.String()
	if t := typ.Elem().Name(); t != res.Kind {
		n += " as " + t
	}
	if sh := runtime.ShardName(opts...); sh != "" {
		n += " shard " + sh
	}
	return n
}

// Start runs every syncer of the set, and those added later, until ctx is
// done. Calling it again does nothing. Wait blocks until they have stopped.
func (s *Set) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx != nil {
		return
	}
	s.ctx = ctx
	for _, m := range s.order {
		s.run(m)
	}
}

// run starts m; s.mu is held.
func (s *Set) run(m *member) {
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		_ = m.syncer.Run(s.ctx) // returns nil when ctx is done; errors go to OnError and LastError
	}()
}

// Wait blocks until every syncer started by Start has stopped (after the
// context given to Start is done) and no handler call is under way.
func (s *Set) Wait() { s.running.Wait() }

// Len returns the number of syncers in the set.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order)
}

// snapshot returns the members in the order added.
func (s *Set) snapshot() []*member {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*member(nil), s.order...)
}

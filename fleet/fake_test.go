package fleet_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	clienttesting "k8s.io/client-go/testing"

	"github.com/syncer-gen/syncer-gen/fleet"
)

// fakeLeases returns an in-memory Lease client for tests and examples that
// need no server: client-go's fake clientset, with writes made conditional
// on resourceVersion as the server makes them (the fake alone ignores it,
// and a fleet's guarantee rests on it). The fake runs one action at a time.
func fakeLeases() coordinationv1client.LeasesGetter {
	cs := fake.NewClientset()
	tracker := cs.Tracker()
	gvr := coordinationv1.SchemeGroupVersion.WithResource("leases")
	var rv atomic.Int64
	next := func() string { return strconv.FormatInt(rv.Add(1), 10) }
	current := func(ns, name string) (*coordinationv1.Lease, error) {
		o, err := tracker.Get(gvr, ns, name)
		if err != nil {
			return nil, err
		}
		return o.(*coordinationv1.Lease), nil
	}
	conflict := func(name string) error {
		return apierrors.NewConflict(gvr.GroupResource(), name, errors.New("the object has been modified"))
	}
	cs.PrependReactor("create", "leases", func(a clienttesting.Action) (bool, runtime.Object, error) {
		l := a.(clienttesting.CreateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		l.ResourceVersion = next()
		if err := tracker.Create(gvr, l, a.GetNamespace()); err != nil {
			return true, nil, err
		}
		return true, l, nil
	})
	cs.PrependReactor("update", "leases", func(a clienttesting.Action) (bool, runtime.Object, error) {
		l := a.(clienttesting.UpdateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		cur, err := current(a.GetNamespace(), l.Name)
		if err != nil {
			return true, nil, err
		}
		if l.ResourceVersion != cur.ResourceVersion {
			return true, nil, conflict(l.Name)
		}
		l.ResourceVersion = next()
		if err := tracker.Update(gvr, l, a.GetNamespace()); err != nil {
			return true, nil, err
		}
		return true, l, nil
	})
	cs.PrependReactor("delete", "leases", func(a clienttesting.Action) (bool, runtime.Object, error) {
		d := a.(clienttesting.DeleteAction)
		if p := d.GetDeleteOptions().Preconditions; p != nil && p.ResourceVersion != nil {
			cur, err := current(a.GetNamespace(), d.GetName())
			if err != nil {
				return true, nil, err
			}
			if cur.ResourceVersion != *p.ResourceVersion {
				return true, nil, conflict(d.GetName())
			}
		}
		return false, nil, nil // the fake deletes it
	})
	return cs.CoordinationV1()
}

// A writeFault is what a faultyLeases does with one create or update of a
// Lease: faults a real server cannot be made to produce on demand.
type writeFault int

const (
	// pass: the write goes through.
	pass writeFault = iota
	// refuse: the write fails before it lands, as when API Priority and
	// Fairness rejects it (429).
	refuse
	// loseAnswer: the write lands, but its answer is lost: the client gets
	// an error, as when the connection is reset after the server wrote.
	loseAnswer
	// loseAnswerOnCancel: the write lands, and the call returns only once
	// its context ends, with the context's error: a request cancelled
	// (Run's context ended) or timed out while its answer was on its way.
	loseAnswerOnCancel
)

// faultyLeases is a Lease client that applies rule to each write and
// readRule to each Get.
type faultyLeases struct {
	coordinationv1client.LeasesGetter
	mu       sync.Mutex
	rule     func(verb string, l *coordinationv1.Lease) writeFault
	readRule func(name string) error
}

// setReadRule makes each Get of a Lease first call rule with its name: an
// error is returned in place of the Lease, as when the read's answer is
// lost.
func (f *faultyLeases) setReadRule(rule func(name string) error) {
	f.mu.Lock()
	f.readRule = rule
	f.mu.Unlock()
}

func (f *faultyLeases) readFault(name string) error {
	f.mu.Lock()
	rule := f.readRule
	f.mu.Unlock()
	if rule == nil {
		return nil
	}
	return rule(name)
}

func (f *faultyLeases) setRule(rule func(verb string, l *coordinationv1.Lease) writeFault) {
	f.mu.Lock()
	f.rule = rule
	f.mu.Unlock()
}

func (f *faultyLeases) fault(verb string, l *coordinationv1.Lease) writeFault {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rule == nil {
		return pass
	}
	return f.rule(verb, l)
}

func (f *faultyLeases) Leases(ns string) coordinationv1client.LeaseInterface {
	return &faultyLease{LeaseInterface: f.LeasesGetter.Leases(ns), f: f}
}

type faultyLease struct {
	coordinationv1client.LeaseInterface
	f *faultyLeases
}

func (l *faultyLease) Get(ctx context.Context, name string, o metav1.GetOptions) (*coordinationv1.Lease, error) {
	if err := l.f.readFault(name); err != nil {
		return nil, err
	}
	return l.LeaseInterface.Get(ctx, name, o)
}

func (l *faultyLease) Create(ctx context.Context, lease *coordinationv1.Lease, o metav1.CreateOptions) (*coordinationv1.Lease, error) {
	return l.write(ctx, "create", lease, func() (*coordinationv1.Lease, error) { return l.LeaseInterface.Create(ctx, lease, o) })
}

func (l *faultyLease) Update(ctx context.Context, lease *coordinationv1.Lease, o metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	return l.write(ctx, "update", lease, func() (*coordinationv1.Lease, error) { return l.LeaseInterface.Update(ctx, lease, o) })
}

func (l *faultyLease) write(ctx context.Context, verb string, lease *coordinationv1.Lease, do func() (*coordinationv1.Lease, error)) (*coordinationv1.Lease, error) {
	switch l.f.fault(verb, lease) {
	case refuse:
		return nil, apierrors.NewTooManyRequests("faultyLeases: write refused", 1)
	case loseAnswer:
		if _, err := do(); err != nil {
			return nil, err
		}
		return nil, errors.New("faultyLeases: connection reset by peer after the write landed")
	case loseAnswerOnCancel:
		if _, err := do(); err != nil {
			return nil, err
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return do()
}

// faultyStore is one in-memory Lease store that replicas reach each
// through a faultyLeases of its own.
type faultyStore struct {
	leases coordinationv1client.LeasesGetter
	mu     sync.Mutex
	byID   map[string]*faultyLeases
}

func newFaultyStore() *faultyStore {
	return &faultyStore{leases: fakeLeases(), byID: map[string]*faultyLeases{}}
}

// faults returns replica id's client, made on first use, so that a test
// can set its rule before the replica starts.
func (s *faultyStore) faults(id string) *faultyLeases {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.byID[id]
	if f == nil {
		f = &faultyLeases{LeasesGetter: s.leases}
		s.byID[id] = f
	}
	return f
}

func (s *faultyStore) newFleet(o fleet.Options, _ *gate) (*fleet.Fleet, error) {
	return fleet.NewForClient(s.faults(o.Identity), o)
}

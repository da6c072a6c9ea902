package fleet_test

import (
	"errors"
	"strconv"
	"sync/atomic"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	clienttesting "k8s.io/client-go/testing"
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

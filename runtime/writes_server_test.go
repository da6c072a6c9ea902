package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// A controller that makes one child per parent when it lists none, on the
// real server, its watches held back 300 ms by a proxy while another
// client updates the parents: reading its children from the store, it
// makes duplicates (so the test bites); reading them through Writes, none.
// Then, through Writes: a child it deleted is not read back, another
// client's write costs no wait, and a store cut off from the server fails
// the read with a StaleReadError naming the object.
func TestReadYourOwnWritesOnTheServer(t *testing.T) {
	srv := testbed.Shared(t)
	proxy := testbed.StartProxy(t, srv)
	proxy.DelayWatches(300 * time.Millisecond)
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprintf("writes=%t", on), func(t *testing.T) {
			cs := srv.Client()
			ns := srv.Namespace(t)
			c := startChildController(t, proxy, cs, ns, on)
			c.churn(t, 4*time.Second)
			dups := c.settle(t)
			t.Logf("%d reconciles, %d children made, %d parents with duplicates", c.reconciles.Load(), c.made.Load(), dups)
			switch {
			case !on && dups == 0:
				t.Fatal("no duplicate children with the store read directly: the workload does not bite")
			case on && dups > 0:
				t.Fatalf("%d parents have duplicate children, reading through Writes", dups)
			case !on:
				return
			}
			c.deletedIsNotReadBack(t)
			c.othersWritesDoNotWait(t)
			c.cutOffIsStale(t, proxy)
		})
	}
}

const parents = 40

// childController reconciles parent ConfigMaps (role=parent): each gets
// one child (role=child, parent=<name>) holding the parent's data.
type childController struct {
	cs       kubernetes.Interface
	ns       string
	parents  *runtime.Syncer[*corev1.ConfigMap]
	children *runtime.Syncer[*corev1.ConfigMap]
	writes   *runtime.Writes[*corev1.ConfigMap] // nil: read the store directly
	q        workqueue.TypedInterface[string]
	busy     atomic.Int64

	reconciles, made atomic.Int64
}

func startChildController(t *testing.T, proxy *testbed.Proxy, cs kubernetes.Interface, ns string, on bool) *childController {
	t.Helper()
	ctx := context.Background()
	c := &childController{cs: cs, ns: ns, q: workqueue.NewTyped[string]()}
	var err error
	if c.parents, err = runtime.New[*corev1.ConfigMap](proxy.Config(), configMaps, runtime.WithNamespace(ns), runtime.WithLabelSelector("role=parent")); err != nil {
		t.Fatal(err)
	}
	if c.children, err = runtime.New[*corev1.ConfigMap](proxy.Config(), configMaps, runtime.WithNamespace(ns), runtime.WithLabelSelector("role=child")); err != nil {
		t.Fatal(err)
	}
	if on {
		c.writes = runtime.NewWrites(c.children, 10*time.Second)
	}
	c.parents.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc:    func(p *corev1.ConfigMap) { c.q.Add(p.Name) },
		UpdateFunc: func(_, p *corev1.ConfigMap) { c.q.Add(p.Name) },
	})
	c.children.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc:    func(ch *corev1.ConfigMap) { c.q.Add(ch.Labels["parent"]) },
		UpdateFunc: func(_, ch *corev1.ConfigMap) { c.q.Add(ch.Labels["parent"]) },
		DeleteFunc: func(ch *corev1.ConfigMap, _ runtime.Deletion) { c.q.Add(ch.Labels["parent"]) },
	})
	runSyncer(t, c.parents)
	runSyncer(t, c.children)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, s := range []*runtime.Syncer[*corev1.ConfigMap]{c.parents, c.children} {
		if err := s.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var workers sync.WaitGroup
	for range 2 {
		workers.Go(c.work)
	}
	t.Cleanup(func() { c.q.ShutDown(); workers.Wait() })
	return c
}

func (c *childController) work() {
	for {
		p, shutdown := c.q.Get()
		if shutdown {
			return
		}
		c.busy.Add(1)
		if err := c.reconcile(p); err != nil {
			c.q.Add(p) // again, once this one is done
		}
		c.q.Done(p)
		c.busy.Add(-1)
	}
}

func (c *childController) mine(parent string) runtime.Selection {
	return runtime.Selection{Namespace: c.ns, Labels: labels.SelectorFromSet(labels.Set{"parent": parent})}
}

func (c *childController) reconcile(name string) error {
	c.reconciles.Add(1)
	ctx := context.Background()
	p, ok := c.parents.Store().Get(c.ns, name)
	if !ok {
		return nil
	}
	var kids []*corev1.ConfigMap
	if c.writes != nil {
		var err error
		if kids, err = c.writes.List(ctx, c.mine(name)); err != nil {
			return err
		}
	} else {
		kids = c.children.Store().Select(c.mine(name))
	}
	if len(kids) == 0 {
		end := c.begin("")
		defer end() // once the answer is recorded
		out, err := c.cs.CoreV1().ConfigMaps(c.ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-", Labels: map[string]string{"role": "child", "parent": name}},
			Data:       map[string]string{"v": p.Data["v"]}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		c.made.Add(1)
		c.wrote(out)
		return nil
	}
	if kid := kids[0]; kid.Data["v"] != p.Data["v"] {
		kid = kid.DeepCopy()
		kid.Data["v"] = p.Data["v"]
		end := c.begin(kid.Name)
		defer end()
		out, err := c.cs.CoreV1().ConfigMaps(c.ns).Update(ctx, kid, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		c.wrote(out)
	}
	return nil
}

func (c *childController) begin(name string) func() {
	if c.writes == nil {
		return func() {}
	}
	return c.writes.Begin(c.ns, name)
}

func (c *childController) wrote(obj *corev1.ConfigMap) {
	if c.writes != nil {
		c.writes.Wrote(obj)
	}
}

// churn makes a parent every 100 ms and updates the parents one after the
// other, every 10 ms, for d: a new parent is updated while its first
// reconcile's child is still on its way to the store (the watch lags 300
// ms), and so reconciled again before its child can be seen.
func (c *childController) churn(t *testing.T, d time.Duration) {
	t.Helper()
	ctx := context.Background()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	made := 0
	for i, end := 0, time.Now().Add(d); time.Now().Before(end) || made < parents; i++ {
		<-tick.C
		if i%10 == 0 && made < parents {
			if _, err := c.cs.CoreV1().ConfigMaps(c.ns).Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%02d", made), Labels: map[string]string{"role": "parent"}},
				Data:       map[string]string{"v": "0"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			made++
			continue
		}
		p, err := c.cs.CoreV1().ConfigMaps(c.ns).Get(ctx, fmt.Sprintf("p-%02d", i%made), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Data["v"] = strconv.Itoa(i)
		if _, err := c.cs.CoreV1().ConfigMaps(c.ns).Update(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// settle waits until every parent has a child holding its data, the
// children's store holds what the server holds, and no reconcile is under
// way; it returns the number of parents with more than one child.
func (c *childController) settle(t *testing.T) int {
	t.Helper()
	var dups int
	eventually(t, time.Minute, "the controller to settle", func() bool {
		list, err := c.cs.CoreV1().ConfigMaps(c.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "role=child"})
		if err != nil {
			t.Fatal(err)
		}
		kids, current := map[string]int{}, map[string]bool{}
		for _, ch := range list.Items {
			if got, ok := c.children.Store().Get(c.ns, ch.Name); !ok || got.ResourceVersion != ch.ResourceVersion {
				return false
			}
			parent := ch.Labels["parent"]
			kids[parent]++
			if p, ok := c.parents.Store().Get(c.ns, parent); ok && p.Data["v"] == ch.Data["v"] {
				current[parent] = true
			}
		}
		dups = 0
		for _, n := range kids {
			if n > 1 {
				dups++
			}
		}
		return len(current) == parents && c.children.Store().Len() == len(list.Items) && c.q.Len() == 0 && c.busy.Load() == 0
	})
	return dups
}

// deletedIsNotReadBack deletes p-01's child and lists p-01's children at
// once: the store has not seen the deletion (the watch lags 300 ms), and
// the List must wait for it.
func (c *childController) deletedIsNotReadBack(t *testing.T) {
	t.Helper()
	c.q.ShutDown() // no reconcile makes another child meanwhile
	ctx := context.Background()
	kid := c.children.Store().Select(c.mine("p-01"))[0]
	if err := c.cs.CoreV1().ConfigMaps(c.ns).Delete(ctx, kid.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.writes.Deleted(kid)
	kids, err := c.writes.List(ctx, c.mine("p-01"))
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 0 {
		t.Fatalf("List after the deletion read %s back", kids[0].Name)
	}
}

// othersWritesDoNotWait changes p-02's child through another client: a
// List of p-02's children does not wait for it (a limit far below the
// watch's lag would fail it), and finds the state before.
func (c *childController) othersWritesDoNotWait(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	kid := c.children.Store().Select(c.mine("p-02"))[0].DeepCopy()
	kid.Data["v"] = "other"
	if _, err := c.cs.CoreV1().ConfigMaps(c.ns).Update(ctx, kid, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	quick := runtime.NewWrites(c.children, 20*time.Millisecond)
	if _, err := quick.List(ctx, c.mine("p-02")); err != nil {
		t.Fatalf("a List waited for another client's write: %v", err)
	}
}

// cutOffIsStale cuts the watches off (the proxy answers 503), writes p-03's
// child and reads it: the read fails past its limit with a StaleReadError
// naming the child and the resourceVersion the server answered.
func (c *childController) cutOffIsStale(t *testing.T, proxy *testbed.Proxy) {
	t.Helper()
	ctx := context.Background()
	proxy.Pause()
	defer proxy.Resume()
	kid := c.children.Store().Select(c.mine("p-03"))[0].DeepCopy()
	kid.Data["v"] = "cut off"
	out, err := c.cs.CoreV1().ConfigMaps(c.ns).Update(ctx, kid, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := runtime.NewWrites(c.children, 500*time.Millisecond)
	w.Wrote(out)
	_, _, err = w.Get(ctx, c.ns, kid.Name)
	var stale *runtime.StaleReadError
	if !errors.As(err, &stale) || stale.Key != runtime.KeyOf(out) || stale.ResourceVersion != out.ResourceVersion {
		t.Fatalf("Get of a write the store cannot see: %v; want a StaleReadError for %s at %s", err, runtime.KeyOf(out), out.ResourceVersion)
	}
}

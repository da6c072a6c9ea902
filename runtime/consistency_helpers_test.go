package runtime_test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// checker is a Handler that rebuilds the state (key -> object) from handler
// calls alone and records every call that breaks the Handler contract.
//
// Its Handler methods and register are the only code of the consistency
// test that knows the Handler interface and AddHandler: when they change
// (OnDelete(obj, how runtime.Deletion), AddHandler returning a
// *runtime.Registration), only these need adapting.
type checker struct {
	ns string

	mu         sync.Mutex
	state      map[string]*corev1.ConfigMap // the rebuilt state
	last       map[string]uint64            // key -> resourceVersion last delivered (add, update or delete)
	violations []string                     // the first few
	nViolation int
	adds       int
	updates    int
	deletes    int
	resyncs    int
	syncs      int
	inResync   bool
	errs       map[runtime.ErrorKind]int
	firstErrs  []string
	closed     bool // the syncer was stopped: no call may come after
	// prior is the state a previous run's handlers were left with (a warm
	// start): an inferred OnDelete of a prior object not delivered in this
	// run is the news that it vanished while no process ran.
	prior    map[string]uint64
	vanished map[string]int

	firstAdd     chan struct{} // closed at the first OnAdd
	firstAddOnce sync.Once
}

func newChecker(ns string) *checker {
	return &checker{
		ns: ns, state: map[string]*corev1.ConfigMap{}, last: map[string]uint64{},
		errs: map[runtime.ErrorKind]int{}, firstAdd: make(chan struct{}), vanished: map[string]int{},
	}
}

// register adds c to s and returns how to remove it.
func (c *checker) register(s *runtime.Syncer[*corev1.ConfigMap]) (remove func()) {
	return s.AddHandler(c, runtime.WithHandlerName("checker")).Remove
}

func (c *checker) OnResyncStarted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.called("OnResyncStarted")
	c.resyncs++
	c.inResync = true
}

func (c *checker) OnSync() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.called("OnSync")
	if !c.inResync {
		c.violate("OnSync without a resync started")
	}
	c.syncs++
	c.inResync = false
}

func (c *checker) OnError(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.called("OnError")
	k := runtime.Classify(err)
	c.errs[k]++
	if len(c.firstErrs) < 5 {
		c.firstErrs = append(c.firstErrs, err.Error())
	}
}

func (c *checker) OnAdd(obj *corev1.ConfigMap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.firstAddOnce.Do(func() { close(c.firstAdd) })
	k, rv, ok := c.identify("OnAdd", obj)
	if !ok {
		return
	}
	c.adds++
	delete(c.prior, k)
	if cur, present := c.state[k]; present {
		c.violate("OnAdd %s@%d: already present at %s", k, rv, cur.ResourceVersion)
	} else if last, seen := c.last[k]; seen && rv <= last {
		c.violate("OnAdd %s@%d: not newer than its deletion at %d", k, rv, last)
	}
	c.state[k], c.last[k] = obj, rv
}

func (c *checker) OnUpdate(old, obj *corev1.ConfigMap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, rv, ok := c.identify("OnUpdate", obj)
	if !ok {
		return
	}
	c.updates++
	cur, present := c.state[k]
	switch {
	case !present:
		c.violate("OnUpdate %s@%d: not present", k, rv)
	case rv <= c.last[k]:
		c.violate("OnUpdate %s: resourceVersion %d -> %d, not newer", k, c.last[k], rv)
	case old == nil || old.ResourceVersion != cur.ResourceVersion:
		c.violate("OnUpdate %s@%d: old is %s, the last delivered is %s", k, rv, rvOf(old), cur.ResourceVersion)
	}
	c.state[k], c.last[k] = obj, max(rv, c.last[k])
}

func (c *checker) OnDelete(obj *corev1.ConfigMap, how runtime.Deletion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, rv, ok := c.identify("OnDelete", obj)
	if !ok {
		return
	}
	c.deletes++
	if p, ok := c.prior[k]; ok && how == runtime.DeletionInferred {
		if _, present := c.state[k]; present || rv != p {
			c.violate("OnDelete %s@%d (vanished): present, or not the prior state %d", k, rv, p)
		}
		delete(c.prior, k)
		c.vanished[k]++
		c.last[k] = max(rv, c.last[k])
		return
	}
	if _, present := c.state[k]; !present {
		c.violate("OnDelete %s@%d: not present", k, rv)
	} else if how == runtime.DeletionObserved && rv < c.last[k] {
		// An observed deletion is the final state, newer than the last one.
		c.violate("OnDelete %s: resourceVersion %d -> %d, going back", k, c.last[k], rv)
	} else if how == runtime.DeletionInferred && rv != c.last[k] {
		// An inferred one (swept at a resync) is the last state delivered.
		c.violate("OnDelete %s (inferred): resourceVersion %d, not the last delivered %d", k, rv, c.last[k])
	}
	delete(c.state, k)
	c.last[k] = max(rv, c.last[k])
}

// identify returns obj's key and resourceVersion, recording a violation
// for an object that cannot be from this syncer. c.mu is held.
func (c *checker) identify(call string, obj *corev1.ConfigMap) (string, uint64, bool) {
	c.called(call)
	if obj == nil {
		c.violate("%s(nil)", call)
		return "", 0, false
	}
	k := key(obj)
	if obj.Namespace != c.ns {
		c.violate("%s %s: not in namespace %s", call, k, c.ns)
		return "", 0, false
	}
	rv, err := strconv.ParseUint(obj.ResourceVersion, 10, 64)
	if err != nil {
		c.violate("%s %s: resourceVersion %q: %v", call, k, obj.ResourceVersion, err)
		return "", 0, false
	}
	return k, rv, true
}

func (c *checker) called(call string) {
	if c.closed {
		c.violate("%s after the syncer was stopped", call)
	}
}

func (c *checker) violate(format string, args ...any) {
	c.nViolation++
	if len(c.violations) < 10 {
		c.violations = append(c.violations, fmt.Sprintf(format, args...))
	}
}

func rvOf(o *corev1.ConfigMap) string {
	if o == nil {
		return "nil"
	}
	return o.ResourceVersion
}

// close records that the syncer has stopped: any later call is a violation.
func (c *checker) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
}

// rebuilt returns the rebuilt state as key -> resourceVersion.
func (c *checker) rebuilt() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := make(map[string]string, len(c.state))
	for k, o := range c.state {
		m[k] = o.ResourceVersion
	}
	return m
}

// errors returns how many errors of kind k were reported.
func (c *checker) errors(k runtime.ErrorKind) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errs[k]
}

// counts returns the number of updates and deletes delivered.
func (c *checker) counts() (updates, deletes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.updates, c.deletes
}

// checkViolations fails the test with the contract violations seen.
func (c *checker) checkViolations(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nViolation > 0 {
		t.Errorf("%d handler contract violations, the first:\n  %s", c.nViolation, strings.Join(c.violations, "\n  "))
	}
}

func (c *checker) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []string
	for k, n := range c.errs {
		errs = append(errs, fmt.Sprintf("%s x%d", k, n))
	}
	sort.Strings(errs)
	return fmt.Sprintf("handler saw %d adds, %d updates, %d deletes, %d resyncs, %d syncs, errors [%s] (first: %q)",
		c.adds, c.updates, c.deletes, c.resyncs, c.syncs, strings.Join(errs, ", "), c.firstErrs)
}

// startChecked starts a ConfigMap syncer on ns with a checker as its only
// handler. stop stops it, waits for Run to return and closes the checker;
// it also runs when the test ends.
func startChecked(t *testing.T, cfg *rest.Config, ns string, opts ...runtime.Option) (s *runtime.Syncer[*corev1.ConfigMap], c *checker, stop func()) {
	t.Helper()
	c = newChecker(ns)
	s, stop = startWith(t, cfg, c, opts...)
	return s, c, stop
}

// startWith is startChecked with a checker of the caller's.
func startWith(t *testing.T, cfg *rest.Config, c *checker, opts ...runtime.Option) (s *runtime.Syncer[*corev1.ConfigMap], stop func()) {
	t.Helper()
	s, err := runtime.New[*corev1.ConfigMap](cfg, configMaps, append([]runtime.Option{runtime.WithNamespace(c.ns)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	c.register(s)
	stopRun := runSyncer(t, s)
	stop = sync.OnceFunc(func() {
		stopRun()
		c.close()
	})
	t.Cleanup(stop)
	return s, stop
}

// state is a set of objects as key -> resourceVersion.
type state map[string]string

// quorumList returns the objects of ns from a quorum read (resourceVersion
// "", metadata only) and the list's resourceVersion.
func quorumList(mc metadata.Interface, ns string) (state, uint64, error) {
	list, err := mc.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(ns).
		List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return nil, 0, err
	}
	rv, err := strconv.ParseUint(list.ResourceVersion, 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("list resourceVersion %q: %v", list.ResourceVersion, err)
	}
	m := make(state, len(list.Items))
	for _, o := range list.Items {
		m[o.Namespace+"/"+o.Name] = o.ResourceVersion
	}
	return m, rv, nil
}

func storeState(s *runtime.Syncer[*corev1.ConfigMap]) state {
	objs := s.Store().List()
	m := make(state, len(objs))
	for _, o := range objs {
		m[key(o)] = o.ResourceVersion
	}
	return m
}

// diff is how a state differs from the server's.
type diff struct {
	missing, extra, stale []string
}

func (d diff) empty() bool { return len(d.missing)+len(d.extra)+len(d.stale) == 0 }

func (d diff) String() string {
	if d.empty() {
		return "no difference"
	}
	part := func(what string, ks []string) string {
		sort.Strings(ks)
		if len(ks) > 4 {
			return fmt.Sprintf("%d %s (%s, ...)", len(ks), what, strings.Join(ks[:4], ", "))
		}
		return fmt.Sprintf("%d %s %v", len(ks), what, ks)
	}
	return part("missing", d.missing) + "; " + part("extra", d.extra) + "; " + part("stale", d.stale)
}

// compare returns how got differs from want.
func compare(got, want state) diff {
	var d diff
	for k, rv := range want {
		g, ok := got[k]
		switch {
		case !ok:
			d.missing = append(d.missing, k+"@"+rv)
		case g != rv:
			d.stale = append(d.stale, k+"@"+g+" (server "+rv+")")
		}
	}
	for k, rv := range got {
		if _, ok := want[k]; !ok {
			d.extra = append(d.extra, k+"@"+rv)
		}
	}
	return d
}

// behind returns how got, a state read after a list at resourceVersion rv1
// (before1: its objects) and before a list after (its objects), fails to
// reflect every write up to rv1 while writes go on: an object of before1 is
// missing only if deleted or recreated since, stale only if older than in
// before1; an object not in before1 is extra only if not newer than rv1.
func behind(got, before1 state, rv1 uint64, after state) diff {
	var d diff
	for k, rv := range before1 {
		g, ok := got[k]
		switch {
		case !ok:
			if a, still := after[k]; still && a == rv {
				d.missing = append(d.missing, k+"@"+rv)
			}
		case parseRV(g) < parseRV(rv):
			d.stale = append(d.stale, k+"@"+g+" (server "+rv+")")
		}
	}
	for k, g := range got {
		if _, ok := before1[k]; !ok && parseRV(g) <= rv1 {
			d.extra = append(d.extra, k+"@"+g)
		}
	}
	return d
}

func parseRV(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// waitCaughtUp polls, with writes still flowing, until the store reflects
// every write up to a quorum list taken just before it, and returns when.
func waitCaughtUp(t *testing.T, mc metadata.Interface, ns string, s *runtime.Syncer[*corev1.ConfigMap], c *checker, d time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(d)
	var last, handler diff
	var lastErr error
	for {
		l1, rv1, err := quorumList(mc, ns)
		if err == nil {
			got, rebuilt := storeState(s), state(c.rebuilt())
			var l2 state
			if l2, _, err = quorumList(mc, ns); err == nil {
				if last = behind(got, l1, rv1, l2); last.empty() {
					return time.Now()
				}
				handler = behind(rebuilt, l1, rv1, l2)
			}
		}
		if err != nil {
			lastErr = err
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store has not caught up with the server after %s (writes flowing):\n  store: %s\n  handler: %s\n  last list error: %v; %s",
				d, last, handler, lastErr, c)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// checkConverged polls, once writes have stopped, until the store and the
// state rebuilt from handler calls both equal a quorum list of ns, and fails
// the test with the differences if they do not within d.
func checkConverged(t *testing.T, mc metadata.Interface, ns string, s *runtime.Syncer[*corev1.ConfigMap], c *checker, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		want, _, err := quorumList(mc, ns)
		if err == nil {
			ds, dh := compare(storeState(s), want), compare(c.rebuilt(), want)
			if ds.empty() && dh.empty() {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("not converged %s after the writes stopped (server: %d objects):\n  store: %s\n  handler: %s", d, len(want), ds, dh)
				return
			}
		} else if time.Now().After(deadline) {
			t.Errorf("quorum list: %v", err)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// The checker catches each kind of contract violation, and the state
// comparisons tell missing, extra and stale objects apart.
func TestConsistencyChecker(t *testing.T) {
	cm := func(name, rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	}
	c := newChecker("ns")
	c.OnResyncStarted()
	c.OnAdd(cm("a", "10"))
	c.OnAdd(cm("b", "11"))
	c.OnSync()
	c.OnUpdate(cm("a", "10"), cm("a", "12"))
	c.OnDelete(cm("b", "13"), runtime.DeletionObserved)
	c.OnAdd(cm("b", "14")) // recreated
	c.checkViolations(t)
	if got := c.rebuilt(); len(got) != 2 || got["ns/a"] != "12" || got["ns/b"] != "14" {
		t.Fatalf("rebuilt %v", got)
	}

	bad := []func(){
		func() { c.OnAdd(cm("a", "15")) },                              // present
		func() { c.OnUpdate(cm("a", "12"), cm("a", "12")) },            // not newer
		func() { c.OnUpdate(cm("a", "11"), cm("a", "16")) },            // old is not the last delivered
		func() { c.OnUpdate(cm("x", "1"), cm("x", "17")) },             // absent
		func() { c.OnDelete(cm("y", "18"), runtime.DeletionObserved) }, // absent
		func() { c.OnDelete(cm("b", "9"), runtime.DeletionObserved) },  // going back
		func() { c.OnDelete(cm("a", "13"), runtime.DeletionInferred) }, // inferred, not the last state
		func() { c.OnAdd(cm("b", "8")) },                               // re-added at an older version
		func() { c.OnSync() },                                          // no resync started
		func() {
			c.OnAdd(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "o", ResourceVersion: "1"}})
		},
		func() { c.close(); c.OnError(fmt.Errorf("late")) }, // after the syncer stopped
	}
	for i, f := range bad {
		before := c.nViolation
		f()
		if c.nViolation != before+1 {
			t.Errorf("bad call %d: %d violations recorded, want 1", i, c.nViolation-before)
		}
	}

	server := state{"ns/a": "20", "ns/b": "21", "ns/c": "22"}
	d := compare(state{"ns/a": "20", "ns/b": "19", "ns/d": "5"}, server)
	if len(d.missing) != 1 || len(d.extra) != 1 || len(d.stale) != 1 {
		t.Errorf("compare: %s, want 1 missing, 1 extra, 1 stale", d)
	}
	// Writes after the first list (rv 22) explain a newer object, an
	// object deleted since and a new one; an older one does not.
	after := state{"ns/a": "25", "ns/c": "22", "ns/e": "26"}
	if d := behind(state{"ns/a": "25", "ns/c": "22", "ns/e": "26"}, server, 22, after); !d.empty() {
		t.Errorf("behind, caught up: %s", d)
	}
	if d := behind(state{"ns/a": "19", "ns/b": "21", "ns/d": "5"}, server, 22, after); len(d.stale) != 1 || len(d.missing) != 1 || len(d.extra) != 1 {
		t.Errorf("behind: %s, want 1 stale (a), 1 missing (c), 1 extra (d)", d)
	}
}

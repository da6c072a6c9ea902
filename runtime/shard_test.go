package runtime_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// TestShardsPartitionTheResource runs three shards of one resource while
// writes flow, on servers that serve shards (the feature gate on, 1.37 and
// 1.36) and on one that ignores the selector (the gate off): either way,
// each shard's store and the state rebuilt from its handler's calls must
// equal its part of a quorum LIST, and every object must be in exactly one
// shard; the shards must say who kept them to their part.
func TestShardsPartitionTheResource(t *testing.T) {
	const shards = 3
	gateOn := testbed.WithAPIServerFlags("--feature-gates=ShardedListAndWatch=true")
	for _, tc := range []struct {
		name string
		opts []testbed.Option
		want runtime.ShardMode
	}{
		{"Served", []testbed.Option{gateOn}, runtime.ShardServed},
		{"Served1.36", []testbed.Option{gateOn, testbed.WithKubeVersion("v1.36.3")}, runtime.ShardServed},
		{"FilteredHere", nil, runtime.ShardFiltered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := testbed.Start(t, tc.opts...)
			f := prepare(t, srv, 1500, 256)
			w := testbed.StartWriter(t, srv.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, Population: 500})
			type shard struct {
				s    *runtime.Syncer[*corev1.ConfigMap]
				c    *checker
				stop func()
			}
			var all []shard
			for i := range shards {
				s, c, stop := startChecked(t, isolated(t, srv), f.ns, append(faultOptions, runtime.WithShard(i, shards))...)
				all = append(all, shard{s, c, stop})
			}
			for _, sh := range all {
				waitSynced(t, sh.s, sh.c, "", nil)
			}
			eventually(t, 20*time.Second, "the writer to do "+itoa(minWrites)+" writes", func() bool { return w.Stats().Writes() >= minWrites })
			t.Logf("writer: %s", w.Stop())
			deadline := time.Now().Add(convergeWithin)
			for i, sh := range all {
				if m := sh.s.ShardMode(); m != tc.want {
					t.Errorf("shard %d: mode %s, want %s", i, m, tc.want)
				}
				checkShardConverged(t, f, sh.s, sh.c, runtime.ShardRange("object.metadata.uid", i, shards), deadline)
			}
			whole, _, err := quorumList(f.mc, f.ns)
			if err != nil {
				t.Fatal(err)
			}
			seen := state{}
			for i, sh := range all {
				for k, rv := range storeState(sh.s) {
					if _, twice := seen[k]; twice {
						t.Errorf("%s in two shards (the second: %d)", k, i)
					}
					seen[k] = rv
				}
				sh.stop()
				sh.c.checkViolations(t)
			}
			if d := compare(seen, whole); !d.empty() {
				t.Errorf("the shards together differ from a quorum LIST: %s", d)
			}
		})
	}
}

// checkShardConverged polls, once writes have stopped, until the store and
// the state rebuilt from handler calls both equal the part r of a quorum
// LIST, and fails the test with the differences if they do not by deadline.
func checkShardConverged(t *testing.T, f fault, s *runtime.Syncer[*corev1.ConfigMap], c *checker, r sharding.ShardRangeRequirement, deadline time.Time) {
	t.Helper()
	for {
		want, err := shardList(f.mc, f.ns, r)
		if err != nil {
			t.Fatal(err)
		}
		ds, dh := compare(storeState(s), want), compare(c.rebuilt(), want)
		if ds.empty() && dh.empty() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("shard %s not converged after the writes stopped (its part: %d objects):\n  store: %s\n  handler: %s",
				sharding.NewSelector(r), len(want), ds, dh)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// shardList returns the objects of ns whose UID hashes into r, from a
// quorum read of every object.
func shardList(mc metadata.Interface, ns string, r sharding.ShardRangeRequirement) (state, error) {
	list, err := mc.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	sel := sharding.NewSelector(r)
	m := state{}
	for i := range list.Items {
		o := &list.Items[i]
		if ok, err := sel.Matches(o); err != nil || ok {
			if err != nil {
				return nil, fmt.Errorf("%s: %w", o.Name, err)
			}
			m[o.Namespace+"/"+o.Name] = o.ResourceVersion
		}
	}
	return m, nil
}

// TestShardOptions checks that the shards of WithShard cover the hash
// space exactly (every UID in one shard of n), and that a selector the
// server would refuse fails in New, not as a retried server error.
func TestShardOptions(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 8} {
		for u := range 2000 {
			uid := types.UID(fmt.Sprintf("0b7c8f2e-%04d-4cde-9f00-%012d", u, u*7919))
			in := 0
			for i := range n {
				ok, err := sharding.NewSelector(runtime.ShardRange("object.metadata.uid", i, n)).Matches(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{UID: uid}})
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					in++
				}
			}
			if in != 1 {
				t.Fatalf("uid %s in %d of %d shards, want 1", uid, in, n)
			}
		}
	}
	cfg := &rest.Config{Host: "https://127.0.0.1:1"}
	for name, opt := range map[string]runtime.Option{
		"index past count": runtime.WithShard(3, 3),
		"no shards":        runtime.WithShard(0, 0),
		"another field": runtime.WithShardSelector(sharding.NewSelector(sharding.ShardRangeRequirement{
			Key: "object.metadata.name", Start: "0x0000000000000000", End: "0x8000000000000000"})),
		"upper case hex": runtime.WithShardSelector(sharding.NewSelector(sharding.ShardRangeRequirement{
			Key: "object.metadata.uid", Start: "0x0000000000000000", End: "0x8000000000000ABC"})),
		"empty range": runtime.WithShardSelector(sharding.NewSelector(sharding.ShardRangeRequirement{
			Key: "object.metadata.uid", Start: "0x8000000000000000", End: "0x8000000000000000"})),
		"everything": runtime.WithShardSelector(sharding.Everything()),
	} {
		if _, err := runtime.New[*corev1.ConfigMap](cfg, configMaps, opt); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
	if runtime.OptionsKey(runtime.WithShard(0, 2)) == runtime.OptionsKey(runtime.WithShard(1, 2)) {
		t.Error("two shards have the same options key: a set would give one syncer for both")
	}
}

// TestShardSelectorOnEveryRequest plays a server that ignores the shard
// selector (it sends every object) through a cold start, a warm restart
// whose snapshot's resourceVersion is gone, and its fetches: every request
// must carry the selector, no object outside the shard may reach the
// store or the handler, and the syncer must say it filters the shard
// itself.
func TestShardSelectorOnEveryRequest(t *testing.T) {
	const n = 2
	in := func(name string) bool {
		ok, _ := sharding.NewSelector(runtime.ShardRange("object.metadata.uid", 0, n)).Matches(fakeCM(name, 1))
		return ok
	}
	var mine, other []string
	for i := 0; len(mine) < 3 || len(other) < 3; i++ {
		name := fmt.Sprintf("o%d", i)
		if in(name) {
			mine = append(mine, name)
		} else {
			other = append(other, name)
		}
	}
	objs := func(rv int) (out []*corev1.ConfigMap) {
		for _, name := range append(slices.Clone(mine[:3]), other[:3]...) {
			out = append(out, fakeCM(name, rv))
		}
		return out
	}
	var mu sync.Mutex
	var selectors []string
	f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
		if r.URL.Query().Get("resourceVersion") == "10" {
			gone(send, "10")
			return true
		}
		return false
	})
	f.initial = objs(10)
	f.count = func(w http.ResponseWriter, r *http.Request) { writeList(w, 10, "", nil, objs(10)...) }
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		if name := r.URL.Query().Get("fieldSelector"); strings.HasPrefix(name, "metadata.name=") {
			writeList(w, 100, "", nil, fakeCM(strings.TrimPrefix(name, "metadata.name="), 60))
			return
		}
		writeMetadataList(w, 100, objs(60)...)
	}
	wrap := func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			selectors = append(selectors, r.URL.Query().Get("shardSelector"))
			mu.Unlock()
			return rt.RoundTrip(r)
		})
	}
	opt := runtime.WithShard(0, n)
	cfg := f.config()
	cfg.Wrap(wrap)
	s1, err := runtime.New[*corev1.ConfigMap](cfg, configMaps, opt, runtime.WithSnapshot(f.path))
	if err != nil {
		t.Fatal(err)
	}
	stop := runSyncer(t, s1)
	if err := s1.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	stop()
	s2, r := startSyncer(t, cfg, opt, runtime.WithSnapshot(f.path))
	if err := s2.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s2.Mode() != runtime.ModeWarm || s2.ShardMode() != runtime.ShardFiltered {
		t.Errorf("mode %s, shard mode %s; want warm, filtered", s2.Mode(), s2.ShardMode())
	}
	for _, k := range s2.Store().Keys() {
		if !in(k.Name) {
			t.Errorf("%s stored: it is not in the shard", k.Name)
		}
	}
	if s2.Store().Len() != 3 {
		t.Errorf("store %v, want %v", s2.Store().Keys(), mine[:3])
	}
	r.mu.Lock()
	for _, name := range other {
		if r.adds["ns/"+name]+r.deletes["ns/"+name] > 0 {
			t.Errorf("the handler was told of %s, outside the shard", name)
		}
	}
	r.mu.Unlock()
	want := sharding.NewSelector(runtime.ShardRange("object.metadata.uid", 0, n)).String()
	mu.Lock()
	defer mu.Unlock()
	for i, sel := range selectors {
		if sel != want {
			t.Errorf("request %d with shardSelector %q, want %q", i, sel, want)
		}
	}
	if len(selectors) < 6 {
		t.Errorf("%d requests: want the count, WatchList, metadata LIST, fetches and watches", len(selectors))
	}
}

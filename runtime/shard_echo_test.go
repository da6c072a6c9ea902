package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// shardRewriter is a proxy that sends every request for one shard as a
// request for another: the server answers with the other shard's objects,
// and its selector in metadata.shardInfo.
type shardRewriter struct {
	from, to string

	mu      sync.Mutex
	carried int // requests that carried the selector
}

func (p *shardRewriter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		q := r.URL.Query()
		if sel := q.Get("shardSelector"); sel != "" {
			p.mu.Lock()
			p.carried++
			p.mu.Unlock()
			if sel == p.from {
				r = r.Clone(r.Context())
				q.Set("shardSelector", p.to)
				r.URL.RawQuery = q.Encode()
			}
		}
		return rt.RoundTrip(r)
	})
}

func (p *shardRewriter) requests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.carried
}

// TestShardEchoOfAnotherShardIsNotServed plays a proxy that turns every
// request of shard 0 of 2 into one of shard 1, in front of kube-apiserver
// with ShardedListAndWatch on, while writes flow: the server answers with
// shard 1's objects and shard 1's selector in metadata.shardInfo. Whether
// the syncer learns it from the count before a WatchList, from a LIST
// page, or from the count before a warm start's metadata-only LIST (whose
// pages kube-apiserver sends without shardInfo), it must not take the
// answer as served (it synced an empty store, with no error; the warm
// start told every object of its snapshot gone): it must tell
// OnError a KindShardMismatch error, once, ask for every object from then
// on (no request carries the selector again), keep shard 0 itself
// (ShardMode filtered), and end with the store and the state rebuilt from
// handler calls equal to shard 0 of a quorum LIST, hashed as the server
// hashes.
func TestShardEchoOfAnotherShardIsNotServed(t *testing.T) {
	srv := testbed.Start(t, testbed.WithAPIServerFlags("--feature-gates=ShardedListAndWatch=true"))
	mine, theirs := runtime.ShardRange("object.metadata.uid", 0, 2), runtime.ShardRange("object.metadata.uid", 1, 2)
	for _, tc := range []struct {
		name         string
		fromSnapshot bool
		opts         []runtime.Option
		mode         runtime.Mode
	}{
		{"WatchList", false, nil, runtime.ModeWatchList},
		{"ListPages", false, []runtime.Option{runtime.WithoutWatchList(), runtime.WithPageSize(100)}, runtime.ModeList},
		{"WarmStart", true, nil, runtime.ModeWarm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := prepare(t, srv, 1000, 256)
			opts := append(append(faultOptions[:len(faultOptions):len(faultOptions)], runtime.WithShard(0, 2)), tc.opts...)
			c := newChecker(f.ns)
			base := isolated(t, srv) // one host for both runs: a snapshot names its server
			var deleted []string     // of the snapshot, while no syncer ran
			if tc.fromSnapshot {
				opts = append(opts, runtime.WithSnapshot(filepath.Join(t.TempDir(), "shard.snapshot")))
				s1, c1, stop1 := startChecked(t, base, f.ns, opts...)
				waitSynced(t, s1, c1, "on the first run, straight to the server", nil)
				if m := s1.ShardMode(); m != runtime.ShardServed {
					t.Fatalf("first run: shard mode %s, want served", m)
				}
				stop1()
				c1.checkViolations(t)
				c.prior = map[string]uint64{}
				for k, rv := range c1.rebuilt() {
					c.prior[k] = parseRV(rv)
				}
				ch, err := testbed.ChurnConfigMaps(context.Background(), kubernetes.NewForConfigOrDie(base), f.ns, 10)
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range ch.Deleted {
					if _, mine := c.prior[k]; mine {
						deleted = append(deleted, k)
					}
				}
			}
			w := testbed.StartWriter(t, base, f.ns, testbed.WriterOptions{Rate: writeRate, Population: 200, KeepExisting: true})
			proxy := &shardRewriter{from: sharding.NewSelector(mine).String(), to: sharding.NewSelector(theirs).String()}
			cfg := rest.CopyConfig(base)
			cfg.Wrap(proxy.wrap)
			var reported errorCounts
			s, stop := startWith(t, cfg, c, append(opts, runtime.WithMetrics(&reported))...)
			waitSynced(t, s, c, "behind a proxy that asks for another shard", nil)
			eventually(t, 20*time.Second, "the writer to do "+itoa(minWrites)+" writes", func() bool { return w.Stats().Writes() >= minWrites })
			t.Logf("writer: %s", w.Stop())
			checkShardConverged(t, f, s, c, mine, time.Now().Add(convergeWithin))
			if n := reported.of(runtime.KindShardMismatch); n != 1 || c.errors(runtime.KindShardMismatch) != 1 {
				t.Errorf("%d shard mismatches reported, want 1, told to the handler (%s)", n, c)
			}
			if m := s.ShardMode(); m != runtime.ShardFiltered {
				t.Errorf("shard mode %s, want filtered", m)
			}
			if n := proxy.requests(); n != 1 {
				t.Errorf("%d requests carried the shard selector, want the first only", n)
			}
			if s.Mode() != tc.mode {
				t.Errorf("mode %s, want %s", s.Mode(), tc.mode)
			}
			stop()
			c.checkViolations(t)
			if tc.fromSnapshot {
				c.checkPriorSettled(t, deleted)
			}
		})
	}
}

// TestShardEchoOnAMetadataPage plays a server whose metadata-only LIST
// pages carry metadata.shardInfo (kube-apiserver 1.37 drops it from them;
// a later one may not), behind a proxy that asks for another shard, and
// that does not count (a LIST of one item answers 404, so that the page is
// the first answer to tell the shard): a warm start from a snapshot of
// shard 0 gets shard 1's names there. It must not take them for its
// shard's (it told every snapshot object gone and synced empty): it must
// tell the mismatch, read the LIST again for every object, keep its shard
// and start warm, then apply the live events of its shard only.
func TestShardEchoOnAMetadataPage(t *testing.T) {
	mine, theirs := runtime.ShardRange("object.metadata.uid", 0, 2), runtime.ShardRange("object.metadata.uid", 1, 2)
	asked, answered := sharding.NewSelector(mine).String(), sharding.NewSelector(theirs).String()
	var all, ours, other []*corev1.ConfigMap
	for i := 0; len(ours) < 5 || len(other) < 5; i++ { // the hash of such short names is not spread evenly
		o := fakeCM(fmt.Sprintf("o%d", i), 10)
		all = append(all, o)
		if ok, _ := sharding.NewSelector(mine).Matches(o); ok {
			ours = append(ours, o)
		} else {
			other = append(other, o)
		}
	}
	f := newFakeWarm(t, nil)
	f.initial = all
	var mu sync.Mutex
	var selectors []string
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		sel := r.URL.Query().Get("shardSelector")
		mu.Lock()
		selectors = append(selectors, sel)
		mu.Unlock()
		if !isMetadataList(r) {
			t.Errorf("unexpected request %s", r.URL)
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no")
			return
		}
		page := map[string]any{"resourceVersion": "10"}
		objs := all
		if sel != "" { // as the server answers the proxy's request
			page["shardInfo"] = map[string]any{"selector": answered}
			objs = other
		}
		items := []map[string]any{}
		for _, o := range objs {
			items = append(items, map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": o.ObjectMeta})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList", "metadata": page, "items": items})
	}
	f.saveSnapshot(t, runtime.WithShard(0, 2))
	var reported errorCounts
	s, r := f.start(t, runtime.WithShard(0, 2), runtime.WithMetrics(&reported))
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	f.send(&watchEvent{"MODIFIED", fakeCM(other[0].Name, 11)}, &watchEvent{"MODIFIED", fakeCM(ours[0].Name, 12)})
	eventually(t, 5*time.Second, "the live event of the shard", func() bool {
		o, ok := s.Store().Get("ns", ours[0].Name)
		return ok && o.ResourceVersion == "12"
	})
	var want, got []string
	for _, o := range ours {
		want = append(want, o.Name)
	}
	for _, k := range s.Store().Keys() {
		got = append(got, k.Name)
	}
	slices.Sort(want)
	if slices.Sort(got); !slices.Equal(got, want) || s.Mode() != runtime.ModeWarm || s.ShardMode() != runtime.ShardFiltered {
		t.Errorf("mode %s, shard mode %s, store %v; want warm, filtered, with shard 0's %v", s.Mode(), s.ShardMode(), got, want)
	}
	if gone := r.inferredKeys(); len(gone) > 0 {
		t.Errorf("told gone %v: every object of the snapshot is there", gone)
	}
	if n := reported.of(runtime.KindShardMismatch); n != 1 {
		t.Errorf("%d shard mismatches reported, want 1", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(selectors, []string{asked, ""}) {
		t.Errorf("metadata-only LISTs with shard selectors %q, want the shard's, then none", selectors)
	}
}

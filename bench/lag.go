package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// The lag part: what lag probes (runtime.WithLagProbe, docs/lag.md) cost
// kube-apiserver, and how long a consistent read (WaitNoOlderThan(0))
// takes with no delay. 1 and 100 ConfigMap syncers of one namespace, in
// this process, are measured over a window without probes, then with a
// probe every lagInterval, while another namespace is written
// lagWrites times a second (the server's resourceVersion moves, theirs
// does not: each probe takes its watch, the costlier case).

const (
	partLag     = "lag"
	lagInterval = 10 * time.Second // the interval docs/lag.md suggests
	lagWindow   = 30 * time.Second
	lagObjects  = 100
	lagWrites   = 50
	lagReads    = 30
)

var lagSyncers = []int{1, 100}

// lagRun is one round of one number of syncers.
type lagRun struct {
	syncers            int
	baseCPU, probeCPU  time.Duration // kube-apiserver's over the window
	baseReqs, probeReq int64         // the syncers' requests over the window
	reads              []time.Duration
}

var configMapResource = runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true,
	NewList: func() kruntime.Object { return &corev1.ConfigMapList{} }}

// lagRounds runs each number of syncers once a round.
func (b *bench) lagRounds(ctx context.Context) ([]lagRun, error) {
	ns, busy := b.o.namespace+"-lag", b.o.namespace+"-lag-writes"
	for _, n := range []string{ns, busy} {
		if err := createNamespace(ctx, b.cs, n); err != nil {
			return nil, err
		}
	}
	for i := range lagObjects {
		for _, n := range []string{ns, busy} {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i)}, Data: map[string]string{"v": "0"}}
			if _, err := b.cs.CoreV1().ConfigMaps(n).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				return nil, err
			}
		}
	}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { b.lagWriter(wctx, busy) })
	defer func() { stop(); wg.Wait() }()
	var out []lagRun
	for round := 1; round <= b.o.rounds; round++ {
		for _, n := range lagSyncers {
			r, err := b.lagRun(ctx, ns, n)
			if err != nil {
				return nil, fmt.Errorf("lag round %d, %d syncers: %w", round, n, err)
			}
			fmt.Fprintf(os.Stderr, "lag round %d/%d, %d syncers: kube-apiserver CPU %s without probes, %s with; requests %d, %d\n",
				round, b.o.rounds, n, r.baseCPU.Round(time.Millisecond), r.probeCPU.Round(time.Millisecond), r.baseReqs, r.probeReq)
			out = append(out, r)
		}
	}
	return out, nil
}

// lagWriter patches the ConfigMaps of ns lagWrites times a second.
func (b *bench) lagWriter(ctx context.Context, ns string) {
	t := time.NewTicker(time.Second / lagWrites)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, _ = b.cs.CoreV1().ConfigMaps(ns).Patch(ctx, fmt.Sprintf("cm-%03d", i%lagObjects), types.MergePatchType,
			fmt.Appendf(nil, `{"data":{"v":"%d"}}`, i), metav1.PatchOptions{})
	}
}

// lagRun measures n syncers without probes, then with.
func (b *bench) lagRun(ctx context.Context, ns string, n int) (lagRun, error) {
	r := lagRun{syncers: n}
	var err error
	if r.baseCPU, r.baseReqs, _, err = b.lagWindow(ctx, ns, n); err != nil {
		return r, err
	}
	r.probeCPU, r.probeReq, r.reads, err = b.lagWindow(ctx, ns, n, runtime.WithLagProbe(lagInterval))
	return r, err
}

// lagWindow runs n synced syncers with opts for lagWindow and returns
// kube-apiserver's CPU and the syncers' requests over it; with probes and
// one syncer, also the times of lagReads consistent reads after it.
func (b *bench) lagWindow(ctx context.Context, ns string, n int, opts ...runtime.Option) (time.Duration, int64, []time.Duration, error) {
	var reqs atomic.Int64
	cfg := rest.CopyConfig(b.cfg)
	cfg.QPS, cfg.Burst = -1, 0
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return counted{rt, &reqs} })
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	syncers := make([]*runtime.Syncer[*corev1.ConfigMap], n)
	for i := range syncers {
		s, err := runtime.New[*corev1.ConfigMap](cfg, configMapResource, append([]runtime.Option{runtime.WithNamespace(ns)}, opts...)...)
		if err != nil {
			return 0, 0, nil, err
		}
		syncers[i] = s
		wg.Go(func() { _ = s.Run(rctx) })
	}
	for _, s := range syncers {
		if err := s.WaitForSync(ctx); err != nil {
			return 0, 0, nil, err
		}
	}
	cpu0, reqs0 := driver.CPUOf([]int{b.apiserver}), reqs.Load()
	select { // the measured window
	case <-ctx.Done():
		return 0, 0, nil, ctx.Err()
	case <-time.After(lagWindow):
	}
	cpu, n0 := driver.CPUOf([]int{b.apiserver})-cpu0, reqs.Load()-reqs0
	var reads []time.Duration
	if len(opts) > 0 && n == 1 {
		for range lagReads {
			began := time.Now()
			if err := syncers[0].WaitNoOlderThan(ctx, 0); err != nil {
				return 0, 0, nil, fmt.Errorf("a consistent read: %w", err)
			}
			reads = append(reads, time.Since(began))
		}
	}
	return cpu, n0, reads, nil
}

// counted counts a transport's requests.
type counted struct {
	http.RoundTripper
	n *atomic.Int64
}

func (c counted) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.RoundTripper.RoundTrip(r)
}

// lagMedians is one number of syncers' medians over the rounds: the extra
// kube-apiserver cores and requests a second the probes cost, and the
// consistent reads' p50 and p99 (one syncer), in seconds.
func lagMedians(runs []lagRun, n int) (cores, reqsPerSec, p50, p99 float64) {
	var cs, rs []float64
	var reads []time.Duration
	for _, r := range runs {
		if r.syncers != n {
			continue
		}
		cs = append(cs, (r.probeCPU-r.baseCPU).Seconds()/lagWindow.Seconds())
		rs = append(rs, float64(r.probeReq-r.baseReqs)/lagWindow.Seconds())
		reads = append(reads, r.reads...)
	}
	if len(cs) == 0 {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	slices.Sort(reads)
	p50, p99 = math.NaN(), math.NaN()
	if len(reads) > 0 {
		p50, p99 = reads[len(reads)/2].Seconds(), reads[min(len(reads)-1, len(reads)*99/100)].Seconds()
	}
	return driver.Median(cs), driver.Median(rs), p50, p99
}

func lagComparisons(runs []lagRun) []driver.Comparison {
	nan := math.NaN()
	cores1, reqs1, p50, p99 := lagMedians(runs, 1)
	cores100, reqs100, _, _ := lagMedians(runs, 100)
	return []driver.Comparison{
		{Key: "lag_probe_server_cores_100", What: "lag: kube-apiserver CPU (cores) that 100 syncers' probes cost, one every 10 s each, the server's resourceVersion moving", Value: cores100, Target: nan},
		{Key: "lag_probe_requests_per_s_100", What: "lag: requests a second that 100 syncers' probes add", Value: reqs100, Target: nan},
		{What: "lag: kube-apiserver CPU (cores) that 1 syncer's probes cost", Value: cores1, Target: nan},
		{What: "lag: requests a second that 1 syncer's probes add", Value: reqs1, Target: nan},
		{What: "lag: a consistent read (WaitNoOlderThan(0)), no delay, p50", Value: p50, Target: nan, Secs: true},
		{Key: "bounded_read_p99_s", What: "lag: a consistent read (WaitNoOlderThan(0)), no delay, p99 (the probe's watch: about a second where the selection is quiet)", Value: p99, Target: nan, Secs: true},
	}
}

// reportLag prints the lag part, when it ran.
func reportLag(w io.Writer, runs []lagRun, cs []driver.Comparison) {
	if len(runs) == 0 {
		return
	}
	var t strings.Builder
	fmt.Fprintf(&t, "| syncers | apiserver CPU s without probes | with | requests without | with |\n|--:|--:|--:|--:|--:|\n")
	for _, r := range runs {
		fmt.Fprintf(&t, "| %d | %.2f | %.2f | %d | %d |\n", r.syncers, r.baseCPU.Seconds(), r.probeCPU.Seconds(), r.baseReqs, r.probeReq)
	}
	fmt.Fprintf(w, "\nLag: %d ConfigMap syncers of a namespace of %d, over %s without probes, then with one every %s each, while another namespace is written %d times a second; "+
		"then %d consistent reads of one syncer, one after another:\n\n%s\nLag figures (medians over the rounds):\n\n%s\n",
		lagSyncers[len(lagSyncers)-1], lagObjects, lagWindow, lagInterval, lagWrites, lagReads, t.String(), driver.ComparisonTable(cs))
}

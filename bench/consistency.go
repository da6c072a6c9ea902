package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/crd/config/crd"
	"github.com/syncer-gen/syncer-gen/internal/childload"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

// The consistency part: read-your-own-writes on the workload where it
// matters (internal/childload): a controller that makes one child per
// parent when it lists none, its watches held back by a proxy while
// another client makes and updates the parents; with controller-runtime's
// cache client or the syncers' (ctrlsyncer), the Manager's
// EnableReadYourWritesConsistency off and on. Each run is a Manager in
// this process (the part measures reconciles and waits, not memory).

const (
	partConsistency = "consistency"

	ryowParents  = 100
	ryowRate     = 100 // parent writes a second
	ryowWorkers  = 4
	ryowDuration = 15 * time.Second
	ryowLag      = 300 * time.Millisecond
)

// consistencyRounds runs every contender once a round, each in a namespace
// of its own.
func (b *bench) consistencyRounds(ctx context.Context) ([]childload.Outcome, error) {
	if err := crd.Install(ctx, b.cfg, time.Minute); err != nil {
		return nil, err
	}
	scheme := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := shopv1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	direct, err := client.New(b.cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	proxy := testbed.NewProxy(b.srv)
	defer proxy.Close()
	proxy.DelayWatches(ryowLag)
	var out []childload.Outcome
	for round := 1; round <= b.o.rounds; round++ {
		for _, c := range roundOrder(childload.Contenders, round) {
			if err := b.quiesce(ctx, c.Name); err != nil {
				return nil, err
			}
			ns := fmt.Sprintf("%s-ryow-%d-%s", b.o.namespace, round, c.Name)
			if err := direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				return nil, err
			}
			o, err := childload.Run(ctx, proxy.Config(), direct, ns, c, ryowParents, ryowRate, ryowWorkers, ryowDuration)
			if err != nil {
				return nil, fmt.Errorf("consistency round %d: %w", round, err)
			}
			fmt.Fprintf(os.Stderr, "consistency round %d/%d %s: %.1f reconciles/s, List p50 %s p99 %s, %d children, %d parents with duplicates\n",
				round, b.o.rounds, c.Name, o.PerSecond, o.ListP50.Round(time.Microsecond), o.ListP99.Round(time.Microsecond), o.Made, o.Dups)
			out = append(out, o)
			if err := direct.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// ryowMedians is one contender's medians over the rounds.
type ryowMedians struct {
	rate, p50, p99 float64 // reconciles/s; seconds
	dups           float64 // over every round
	made           float64
	shadowDiffs    float64 // over every round
}

func consistencyMedians(runs []childload.Outcome) map[string]ryowMedians {
	by := map[string][]childload.Outcome{}
	for _, r := range runs {
		by[r.Contender] = append(by[r.Contender], r)
	}
	out := map[string]ryowMedians{}
	for name, rs := range by {
		var rate, p50, p99, made []float64
		dups, diffs := 0.0, 0.0
		for _, r := range rs {
			diffs += float64(r.ShadowDiffs)
			rate = append(rate, r.PerSecond)
			p50 = append(p50, r.ListP50.Seconds())
			p99 = append(p99, r.ListP99.Seconds())
			made = append(made, float64(r.Made))
			dups += float64(r.Dups)
		}
		out[name] = ryowMedians{rate: driver.Median(rate), p50: driver.Median(p50), p99: driver.Median(p99), dups: dups, made: driver.Median(made), shadowDiffs: diffs}
	}
	return out
}

func consistencyComparisons(runs []childload.Outcome) []driver.Comparison {
	if len(runs) == 0 {
		return nil
	}
	m := consistencyMedians(runs)
	if _, ok := m["shadow-on"]; !ok { // a run of the part before it had the contender
		m["shadow-on"] = ryowMedians{rate: math.NaN(), p99: math.NaN(), shadowDiffs: math.NaN()}
	}
	ratio := func(a, b float64) float64 {
		if b == 0 {
			return math.NaN()
		}
		return a / b
	}
	return []driver.Comparison{
		{Key: "ryow_dups", What: "consistency: parents with duplicate children, syncers with the switch on (every round)", Value: m["syncers-on"].dups, Target: 0, Count: true},
		{Key: "ryow_reconcile_time_vs_off", What: "consistency: time per reconcile, syncers switch on / off (<= 1.11: on keeps >= 0.9x the reconciles/s)",
			Value: ratio(m["syncers-off"].rate, m["syncers-on"].rate), Target: 1.11},
		{Key: "ryow_wait_p99_vs_cache", What: "consistency: List p99 (its wait), syncers switch on / controller-runtime's cache switch on",
			Value: ratio(m["syncers-on"].p99, m["cache-on"].p99), Target: 0.5},
		{Key: "shadow_read_p99_vs_cache", What: "consistency: List p99, the cache with shadow reads of every read / the cache alone (switch on both)",
			Value: ratio(m["shadow-on"].p99, m["cache-on"].p99), Target: 1.2},
		{Key: "shadow_reconcile_time_vs_cache", What: "consistency: time per reconcile, the cache with shadow reads of every read / the cache alone (switch on both)",
			Value: ratio(m["cache-on"].rate, m["shadow-on"].rate), Target: 1.1},
		{Key: "shadow_differences", What: "consistency: shadow reads that differed past the lag bound, on a clean run (every round)", Value: m["shadow-on"].shadowDiffs, Target: 0, Count: true},
		{Key: "ryow_cache_reconcile_time_vs_off", What: "consistency: time per reconcile, controller-runtime's cache switch on / off (context)",
			Value: ratio(m["cache-off"].rate, m["cache-on"].rate), Target: math.NaN()},
	}
}

// reportConsistency prints the consistency part, when it ran.
func reportConsistency(w io.Writer, runs []childload.Outcome, cs []driver.Comparison) {
	if len(runs) == 0 {
		return
	}
	m := consistencyMedians(runs)
	var t strings.Builder
	fmt.Fprintf(&t, "| contender | reconciles/s | List p50 ms | List p99 ms | children made | parents with duplicates (all rounds) |\n|---|--:|--:|--:|--:|--:|\n")
	for _, c := range childload.Contenders {
		r, ok := m[c.Name]
		if !ok {
			continue
		}
		fmt.Fprintf(&t, "| %s | %s | %s | %s | %s | %s |\n", c.Name, driver.Num(r.rate, 1), driver.Num(r.p50*1000, 2), driver.Num(r.p99*1000, 1),
			driver.Num(r.made, 0), driver.Num(r.dups, 0))
	}
	fmt.Fprintf(w, "\nConsistency: a controller that makes one child per parent when it lists none (%d parents made while updated, then updated %d times a second by another client; %d workers; "+
		"its watches held back %s by a proxy), with controller-runtime's cache or the syncers, the Manager's EnableReadYourWritesConsistency off or on, "+
		"and the cache with the syncers beside it comparing every read (shadow-on: its memory is the two caches'; this part measures reads, not memory); "+
		"reconciles and List times over %s after a 5 s warm-up, medians over the rounds:\n\n%s\n", ryowParents, ryowRate, ryowWorkers, ryowLag, ryowDuration, t.String())
	fmt.Fprintf(w, "Consistency ratios:\n\n%s\n", driver.ComparisonTable(cs))
}

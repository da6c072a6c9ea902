package childload

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
)

// Contender is how the controller reads: with controller-runtime's cache
// or with syncers, its Manager's EnableReadYourWritesConsistency off or on;
// or from the cache with the syncers beside it, shadow reads comparing
// every read (ctrlsyncer.WithShadowReads).
type Contender struct {
	Name    string
	Syncers bool
	Switch  bool
	Shadow  bool
}

// Contenders are the five, in the bench's order.
var Contenders = []Contender{
	{Name: "cache-off"}, {Name: "cache-on", Switch: true},
	{Name: "syncers-off", Syncers: true}, {Name: "syncers-on", Syncers: true, Switch: true},
	{Name: "shadow-on", Syncers: true, Switch: true, Shadow: true},
}

// Outcome is what one run measured.
type Outcome struct {
	Contender  string
	Reconciles int64         // after the warm-up
	PerSecond  float64       // reconciles per second after the warm-up
	ListP50    time.Duration // a reconcile's List of its children, its wait included
	ListP99    time.Duration
	Made       int64 // children made
	Dups       int   // parents with more than one child once settled
	// Shadow reads (the shadow-on contender): reads compared, and those
	// that differed past the lag bound.
	ShadowCompared, ShadowDiffs int64
}

// warmup is the start of a run left out of its figures: the parents made
// at once, their first children, their first updates.
const warmup = 5 * time.Second

// Run runs c's controller over the parents Churn makes in ns and updates
// rate times a second, its Manager talking to cfg (a proxy that holds its
// watches back), direct writing the parents and counting the children;
// workers reconcile at once. The reconciles and the reads are measured
// for d after a warm-up of 5s; the duplicates once the churn has ended and
// the controller has settled.
func Run(ctx context.Context, cfg *rest.Config, direct client.Client, ns string, c Contender, parents, rate, workers int, d time.Duration) (Outcome, error) {
	scheme := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return Outcome{}, err
	}
	if err := shopv1alpha1.AddToScheme(scheme); err != nil {
		return Outcome{}, err
	}
	on := c.Switch
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Logger: logr.Discard(),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Client: client.Options{Cache: &client.CacheOptions{EnableReadYourWritesConsistency: &on}}})
	if err != nil {
		return Outcome{}, err
	}
	r := &Reconciler{}
	switch {
	case c.Shadow:
		err = r.SetupWithSyncers(mgr, ns, workers, ctrlsyncer.WithShadowReads(1, 5*time.Second))
	case c.Syncers:
		err = r.SetupWithSyncers(mgr, ns, workers)
	default:
		err = r.SetupWithManager(mgr, workers)
	}
	if err != nil {
		return Outcome{}, err
	}
	r.Client = &timed{Client: r.Client}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return Outcome{}, fmt.Errorf("%s: the Manager's cache did not sync", c.Name)
	}
	churned := make(chan error, 1)
	go func() { _, err := Churn(ctx, direct, ns, parents, rate, warmup+d); churned <- err }()
	var before int64
	var timer *time.Timer
	select { // the parents made and their first children: not the steady state
	case <-time.After(warmup):
		before, _ = r.Reconciles()
		r.Client.(*timed).reset()
		timer = time.NewTimer(d)
	case err := <-churned:
		return Outcome{}, fmt.Errorf("%s: churn: %w", c.Name, err)
	}
	start := time.Now()
	<-timer.C
	during, _ := r.Reconciles()
	took := time.Since(start)
	p50, p99 := r.Client.(*timed).percentiles()
	if err := <-churned; err != nil {
		return Outcome{}, fmt.Errorf("%s: churn: %w", c.Name, err)
	}
	settleCtx, stop := context.WithTimeout(ctx, 2*time.Minute)
	defer stop()
	dups, err := r.Settle(settleCtx, direct, ns)
	if err != nil {
		return Outcome{}, fmt.Errorf("%s: %w", c.Name, err)
	}
	_, made := r.Reconciles()
	var compared, differed int64
	if sc, ok := r.Client.(*timed).Client.(*ctrlsyncer.Client); ok && c.Shadow {
		rep := sc.ShadowReads()
		for _, n := range rep.Counts {
			compared += n
		}
		compared -= rep.Counts[ctrlsyncer.ShadowSkipped]
		differed = rep.Counts[ctrlsyncer.ShadowDiffered]
	}
	cancel()
	if err := <-ran; err != nil {
		return Outcome{}, fmt.Errorf("%s: manager: %w", c.Name, err)
	}
	return Outcome{Contender: c.Name, Reconciles: during - before, PerSecond: float64(during-before) / took.Seconds(),
		ListP50: p50, ListP99: p99, Made: made, Dups: dups, ShadowCompared: compared, ShadowDiffs: differed}, nil
}

// timed is a client whose Lists are timed.
type timed struct {
	client.Client
	mu    sync.Mutex
	reads []time.Duration
}

func (t *timed) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	defer t.took(time.Now())
	return t.Client.List(ctx, list, opts...)
}

func (t *timed) took(start time.Time) {
	d := time.Since(start)
	t.mu.Lock()
	t.reads = append(t.reads, d)
	t.mu.Unlock()
}

func (t *timed) reset() {
	t.mu.Lock()
	t.reads = nil
	t.mu.Unlock()
}

func (t *timed) percentiles() (p50, p99 time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.reads) == 0 {
		return 0, 0
	}
	s := slices.Clone(t.reads)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*99/100]
}

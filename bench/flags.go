package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"
)

// options are the benchmark's flags.
type options struct {
	n          int
	size       int
	resource   string
	namespace  string
	workers    int
	rounds     int
	warmup     int
	contenders []string
	rate       int
	duration   time.Duration
	steadyPool int
	// steadyWriters is how many updates may be in flight at once.
	steadyWriters int
	// slopeRates are the update rates of the slope phases that follow a
	// Slope contender's steady state, each slopeDuration long.
	slopeRates    []int
	slopeDuration time.Duration
	// writeFor, when not 0, caps how long a steady state writes (see
	// writeUpdates); set for the slope phases only.
	writeFor time.Duration
	// quiet is how long a Quiet contender is measured with no event, after
	// a settle of at most quietSettle (bench/idle.go); 0 for not at all.
	quiet, quietSettle time.Duration
	profileDir         string
	timeout            time.Duration
	// parts are the parts of the benchmark to run (see partNames).
	parts []string
	// clients is how many clients start at once in the server-cost part.
	clients int
	// agents is the number of node agents of the wave part.
	agents int
	// kubeVersion is the kube-apiserver version to run; "" is the test
	// bed's default.
	kubeVersion string
	// watchListCompression false turns 1.37's gzip of WatchList responses off.
	watchListCompression bool
	// charts is the folder the parts' SVG charts are written to; "" for none.
	charts string
	// projPods, projCRs and projCRSize size the projection part.
	projPods, projCRs, projCRSize int
	// agentPods is how many pods the node agent's node runs (projection part).
	agentPods int
	// metaN and metaSize size the metadata part: its ConfigMaps and their
	// data's bytes.
	metaN, metaSize int
	// namedN and namedSize size the named part: its Secrets and their
	// data's bytes.
	namedN, namedSize int
}

// The parts of the benchmark, in the order they run.
const (
	partContenders = "contenders" // every contender, one at a time: the first tables
	partServerCost = "server-cost"
	partCRD        = "crd"
	partWarm       = "warm"
	partShard      = "shard"
	partWave       = "wave"
	partFleet      = "fleet"
	partRestart    = "restart"
)

var partNames = []string{partContenders, partServerCost, partCRD, partWarm, partShard, partWave, partRestart, partFleet, partProjection, partMetadata, partConsistency, partLag, partNamed}

func (o options) runs(part string) bool { return slices.Contains(o.parts, part) }

func parseOptions(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.IntVar(&o.n, "n", 20000, "number of objects to create")
	fs.IntVar(&o.size, "size", 2048, "payload bytes per object")
	fs.StringVar(&o.resource, "resource", "configmaps", "resource to sync: "+strings.Join(resourceNames(), " or "))
	fs.StringVar(&o.namespace, "namespace", "bench", "namespace of the objects")
	fs.IntVar(&o.workers, "workers", 32, "parallel workers creating the objects")
	fs.IntVar(&o.rounds, "rounds", 3, "measured rounds; each runs every contender once")
	fs.IntVar(&o.warmup, "warmup", 1, "unmeasured floor-read runs before the first round")
	list := fs.String("contenders", strings.Join(contenderNames(), ","), "comma-separated contenders to run")
	fs.IntVar(&o.rate, "rate", 200, "steady state: updates per second written by the parent")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "steady state: how long updates are written")
	fs.IntVar(&o.steadyPool, "steady-objects", 500, "steady state: how many of the objects the updates cycle over")
	fs.IntVar(&o.steadyWriters, "steady-writers", 8, "steady state: how many updates may be in flight at once (more for high rates)")
	slope := fs.String("slope-rates", "1000,3000", "marginal CPU per event: update rates of the slope phases after the steady state (ours, floor-decode, client-go-watchlist, ours-projected); empty for none")
	fs.DurationVar(&o.slopeDuration, "slope-duration", 5*time.Second, "how long each slope phase writes updates")
	fs.DurationVar(&o.quiet, "quiet", 35*time.Second, "idle cost: how long a synced process is measured with no event, from outside it (ours, floor-decode, client-go-watchlist, cr-cache, the node agent and its peers; ours with a mechanism on, three of its periods at most); 0 for not at all")
	fs.DurationVar(&o.quietSettle, "quiet-settle", 10*time.Second, "idle cost: the longest wait after sync, for a second in which no thread of the process woke, before it is measured")
	fs.StringVar(&o.profileDir, "profile", "", "write each child's CPU and heap profiles into this folder (profiling costs CPU: figures of such a run are not the benchmark's)")
	fs.DurationVar(&o.timeout, "child-timeout", 5*time.Minute, "longest a child may take to sync or to finish its steady state")
	parts := fs.String("parts", strings.Join(partNames, ","), "comma-separated parts to run: "+strings.Join(partNames, ", "))
	fs.IntVar(&o.clients, "clients", 8, "server cost: clients started at once, each its own process")
	fs.IntVar(&o.agents, "agents", 100, "wave: node agents started at once, each its own process syncing its node's pods of -n")
	fs.StringVar(&o.kubeVersion, "kube-version", "", "kube-apiserver version to run, one that hack/build-testbed.sh builds (default: $TESTBED_KUBE_VERSION, else the first it builds)")
	fs.BoolVar(&o.watchListCompression, "watchlist-compression", true, "false starts kube-apiserver with --feature-gates=WatchListCompression=false (1.37 and later gzip WatchList responses by default)")
	fs.IntVar(&o.projPods, "proj-pods", 20000, "projection: Deployment-shaped pods to create and sync")
	fs.IntVar(&o.projCRs, "proj-crs", 2000, "projection: widgets to create and sync")
	fs.IntVar(&o.projCRSize, "proj-cr-size", 3072, "projection: payload bytes per widget")
	fs.IntVar(&o.agentPods, "agent-pods", 250, "projection: Deployment-shaped pods on the node of examples/builtin's node agent")
	fs.IntVar(&o.metaN, "meta-n", 5000, "metadata: ConfigMaps to create (in namespace "+metaNamespace+") and sync metadata-only")
	fs.IntVar(&o.metaSize, "meta-size", 64<<10, "metadata: data bytes per ConfigMap")
	fs.IntVar(&o.namedN, "named-n", 10000, "named: Secrets to create (in namespace "+namedNamespace+"), of which 20 and 1,000 are synced by name")
	fs.IntVar(&o.namedSize, "named-size", 64<<10, "named: data bytes per Secret")
	fs.StringVar(&o.charts, "charts", "docs", "write a chart of each part that ran into this folder, as bench-<part>.svg; empty for none (none with -profile)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o.contenders = splitList(*list)
	for _, r := range splitList(*slope) {
		var rate int
		if _, err := fmt.Sscan(r, &rate); err != nil || rate < 1 {
			return o, fmt.Errorf("-slope-rates: %q is not a positive rate", r)
		}
		o.slopeRates = append(o.slopeRates, rate)
	}
	o.parts = splitList(*parts)
	return o, o.validate()
}

func (o options) validate() error {
	switch {
	case o.n < 1:
		return fmt.Errorf("-n must be at least 1, got %d", o.n)
	case o.size < 0:
		return fmt.Errorf("-size must not be negative, got %d", o.size)
	case o.workers < 1:
		return fmt.Errorf("-workers must be at least 1, got %d", o.workers)
	case o.rounds < 1:
		return fmt.Errorf("-rounds must be at least 1, got %d", o.rounds)
	case o.rate < 1 || o.duration <= 0:
		return fmt.Errorf("-rate and -duration must be positive, got %d and %s", o.rate, o.duration)
	case o.slopeDuration <= 0 || o.quiet < 0 || o.quietSettle < 0:
		return fmt.Errorf("-slope-duration must be positive, -quiet and -quiet-settle not negative, got %s, %s and %s", o.slopeDuration, o.quiet, o.quietSettle)
	case o.steadyPool < 1:
		return fmt.Errorf("-steady-objects must be at least 1, got %d", o.steadyPool)
	case o.steadyWriters < 1:
		return fmt.Errorf("-steady-writers must be at least 1, got %d", o.steadyWriters)
	case o.clients < 1:
		return fmt.Errorf("-clients must be at least 1, got %d", o.clients)
	case o.agents < 1 || o.agents > o.n:
		return fmt.Errorf("-agents must be between 1 and -n, got %d", o.agents)
	case o.projPods < 1 || o.projCRs < 1 || o.projCRSize < 0 || o.agentPods < 1:
		return fmt.Errorf("-proj-pods, -proj-crs and -agent-pods must be at least 1 and -proj-cr-size not negative, got %d, %d, %d and %d",
			o.projPods, o.projCRs, o.agentPods, o.projCRSize)
	case o.metaN < 1 || o.metaSize < 0:
		return fmt.Errorf("-meta-n must be at least 1 and -meta-size not negative, got %d and %d", o.metaN, o.metaSize)
	case o.namedN < namedMany || o.namedSize < 0:
		return fmt.Errorf("-named-n must be at least %d and -named-size not negative, got %d and %d", namedMany, o.namedN, o.namedSize)
	case len(o.parts) == 0:
		return fmt.Errorf("-parts is empty")
	}
	for _, p := range o.parts {
		if !slices.Contains(partNames, p) {
			return fmt.Errorf("-parts: unknown %q; known are %s", p, strings.Join(partNames, ", "))
		}
	}
	if r, ok := resources[o.resource]; !ok || r.newObject == nil {
		return fmt.Errorf("-resource %q: known are %s", o.resource, strings.Join(resourceNames(), ", "))
	}
	if len(o.contenders) == 0 {
		return fmt.Errorf("-contenders is empty")
	}
	for _, c := range o.contenders {
		if _, ok := contenderByName(c); !ok {
			return fmt.Errorf("-contenders: unknown %q; known are %s", c, strings.Join(contenderNames(), ", "))
		}
	}
	return nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

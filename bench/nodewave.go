package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// The node-agent wave part: -agents node agents, each its own process
// syncing the pods of its node (a field selector spec.nodeName=node-<i>)
// out of -n pods spread evenly over the nodes, all started at once
// against a kube-apiserver restarted for the row: a DaemonSet of agents
// rolled. The ours row saves each agent's snapshot as it exits; the
// ours-warm row restarts the agents from them against the same
// kube-apiserver after 1% of the pods were updated and 1% deleted and
// created again; ours-warm-new-apiserver does the same against a
// kube-apiserver restarted since (its watch cache no longer has the
// snapshots' resourceVersion: what changed is fetched). client-go's
// informers get the same field selector, with WatchList and without.

// waveNamespace holds the wave's pods, apart from the other parts' objects.
const waveNamespace = "bench-wave"

// waveRows are the rows of the wave table: ours first, whose agents save
// the snapshots ours-warm starts from. With its field selector ours lists
// (runtime's firstWatchList); ours-watchlist shows what WatchList costs.
var waveRows = []string{ours, oursWarm, oursWarmNewServer, oursWatchList, clientGoWatch, clientGoWatchNoGzip, clientGoList, clientGoListNoGzip}

var waveContenders = []driver.Contender{{Name: oursWarmNewServer,
	What: "ours-warm against a kube-apiserver restarted since the snapshots were saved"}}

// nodeName is the node of agent i, and of the pods i, i+agents, i+2*agents...
func nodeName(i int) string { return fmt.Sprintf("node-%03d", i) }

// podsOnNodes makes the wave's pods: pod i (objectName(i)) on node
// i % nodes, a pause container, and the payload in an annotation.
func podsOnNodes(nodes int) func(ns, name, payload string) kruntime.Object {
	return func(ns, name, payload string) kruntime.Object {
		i, _ := strconv.Atoi(strings.TrimPrefix(name, "obj-"))
		m := objectMeta(ns, name)
		m.Annotations["bench.syncer-gen.io/payload"] = payload
		return &corev1.Pod{ObjectMeta: m, Spec: corev1.PodSpec{
			NodeName:   nodeName(i % nodes),
			Containers: []corev1.Container{{Name: "agent", Image: "registry.k8s.io/pause:3.10"}},
		}}
	}
}

// waveOptions are the options of an agent: the wave's namespace and pods.
func (b *bench) waveOptions() options {
	o := b.o
	o.resource, o.namespace, o.size = "pods", waveNamespace, b.o.size/4
	return o
}

// podsOf is the number of the n pods on node i of nodes.
func podsOf(i, n, nodes int) int {
	c := n / nodes
	if i < n%nodes {
		c++
	}
	return c
}

// populatePods creates the pods of the wave and restart parts.
func (b *bench) populatePods(ctx context.Context) error {
	res := resources["pods"]
	res.newObject = podsOnNodes(b.o.agents)
	return populate(ctx, b.cs, b.cs.CoreV1().RESTClient(), b.waveOptions(), res)
}

// waveRounds runs every row of the wave once per round.
func (b *bench) waveRounds(ctx context.Context) ([]serverRun, error) {
	o := b.waveOptions()
	var runs []serverRun
	for round := 1; round <= b.o.rounds; round++ {
		rows := append([]string{ours, oursWarm, oursWarmNewServer}, roundOrder(waveRows[3:], round)...)
		for _, name := range rows {
			// ours-warm meets the kube-apiserver ours' agents saved their
			// snapshots against, as in a rollout of the agents; every
			// other row a kube-apiserver of its own.
			if name != oursWarm {
				if err := b.srv.Relaunch(); err != nil {
					return nil, err
				}
				if b.servers, b.apiserver = driver.ServerPIDs(); len(b.servers) != 2 || b.apiserver == 0 {
					return nil, fmt.Errorf("wave: found %d of the test bed's processes after restarting kube-apiserver", len(b.servers))
				}
			}
			switch name {
			case ours:
				if err := b.removeWaveSnapshots(); err != nil {
					return nil, err
				}
			case oursWarm, oursWarmNewServer:
				if err := b.churnPods(ctx, o, round); err != nil {
					return nil, err
				}
			}
			if err := b.quiesce(ctx, "wave "+name); err != nil {
				return nil, err
			}
			r, err := b.waveRow(ctx, serverContender(name), o, round)
			if err != nil {
				return nil, fmt.Errorf("wave, round %d, %s: %w", round, name, err)
			}
			fmt.Fprintf(os.Stderr, "wave round %d/%d %-20s %d agents, slowest synced in %.3fs; kube-apiserver peak +%.1f MiB, CPU %.2fs, allocated %.0f MiB\n",
				round, b.o.rounds, name, b.o.agents, r.slowest, float64(r.peak-r.idleRSS)/driver.MiB, r.cpu.Seconds(), r.allocated/driver.MiB)
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// waveSnapshot is agent i's snapshot file.
func (b *bench) waveSnapshot(i int) string {
	return filepath.Join(b.dir, fmt.Sprintf("wave.%s.snapshot", nodeName(i)))
}

func (b *bench) removeWaveSnapshots() error {
	for i := range b.o.agents {
		if err := os.Remove(b.waveSnapshot(i)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// waveRow starts the agents at once; each must see exactly its node's
// pods, and ours-warm's must have started warm.
func (b *bench) waveRow(ctx context.Context, c driver.Contender, o options, round int) (serverRun, error) {
	r, reports, err := b.wave(ctx, c, b.o.agents, o, func(i int) []string {
		extra := []string{fmt.Sprintf("-tag=wave.%s.r%d.%s", c.Name, round, nodeName(i)),
			"-field-selector=spec.nodeName=" + nodeName(i), "-want=" + strconv.Itoa(podsOf(i, b.o.n, b.o.agents))}
		if c.Name == ours || c.Name == oursWarm || c.Name == oursWarmNewServer {
			extra = append(extra, "-snapshot="+b.waveSnapshot(i))
		}
		return extra
	}, round, nil)
	if err != nil {
		return r, err
	}
	for i, s := range reports {
		if want := podsOf(i, b.o.n, b.o.agents); s.Objects != want {
			return r, fmt.Errorf("agent of %s saw %d pods, want %d", nodeName(i), s.Objects, want)
		}
		if (c.Name == oursWarm || c.Name == oursWarmNewServer) && !strings.Contains(s.Note, "mode=warm") {
			return r, fmt.Errorf("agent of %s did not start warm (%s)", nodeName(i), s.Note)
		}
	}
	return r, nil
}

// churnPods updates 1% of the wave's pods, and deletes and creates again
// another 1% (on the same nodes, with new UIDs).
func (b *bench) churnPods(ctx context.Context, o options, round int) error {
	k := max(1, b.o.n/100)
	rc := b.cs.CoreV1().RESTClient()
	res := resources["pods"]
	res.newObject = podsOnNodes(b.o.agents)
	body := fmt.Sprintf(`{"metadata":{"annotations":{"bench.syncer-gen.io/churn":"%d"}}}`, round)
	for j := range k {
		i := (j*97 + round) % b.o.n
		if err := rc.Patch(types.MergePatchType).Namespace(o.namespace).Resource("pods").Name(objectName(i)).
			Body([]byte(body)).Do(ctx).Error(); err != nil {
			return fmt.Errorf("wave churn: update %s: %w", objectName(i), err)
		}
		i = (j*89 + round + b.o.n/2) % b.o.n
		err := rc.Delete().Namespace(o.namespace).Resource("pods").Name(objectName(i)).
			Body(&metav1.DeleteOptions{GracePeriodSeconds: new(int64)}).Do(ctx).Error()
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("wave churn: delete %s: %w", objectName(i), err)
		}
		if err := create(ctx, rc, o, res, i); err != nil {
			return fmt.Errorf("wave churn: %w", err)
		}
	}
	fmt.Fprintf(os.Stderr, "wave churn: %d pods updated, %d deleted and created again\n", k, k)
	return nil
}

func waveTable(runs []serverRun, agents int) *driver.Table {
	t := &driver.Table{Header: []string{"contender", "agents", "runs", "slowest agent's time to synced s",
		"apiserver peak RSS over idle MiB", "apiserver CPU s", "apiserver allocated MiB"}}
	for _, name := range waveRows {
		if s := summarizeServer(runs, name); s.runs > 0 {
			t.Add(name, fmt.Sprint(agents), fmt.Sprint(s.runs), driver.Num(s.slowest, 3), driver.Num(s.peakOverMiB, 1), driver.Num(s.cpu, 2), driver.Num(s.allocatedMiB, 0))
		}
	}
	return t
}

// waveComparisons: the targets for a warm wave against
// client-go's, and no agent of ours slower than client-go's slowest.
func waveComparisons(runs []serverRun) []driver.Comparison {
	o, ow, on := summarizeServer(runs, ours), summarizeServer(runs, oursWarm), summarizeServer(runs, oursWarmNewServer)
	w, l := summarizeServer(runs, clientGoWatch), summarizeServer(runs, clientGoList)
	wn, ln := summarizeServer(runs, clientGoWatchNoGzip), summarizeServer(runs, clientGoListNoGzip)
	nan := math.NaN()
	return []driver.Comparison{
		{Key: "wave_warm_cpu_vs_clientgo", What: "warm wave: ours-warm apiserver CPU / client-go-watchlist", Value: driver.Ratio(ow.cpu, w.cpu), Target: 0.25},
		{Key: "wave_warm_cpu_vs_clientgo_list", What: "warm wave: ours-warm apiserver CPU / client-go-list", Value: driver.Ratio(ow.cpu, l.cpu), Target: 0.5},
		{What: "warm wave: ours-warm apiserver CPU / client-go-watchlist-nogzip", Value: driver.Ratio(ow.cpu, wn.cpu), Target: nan},
		{What: "warm wave: ours-warm apiserver CPU / client-go-list-nogzip", Value: driver.Ratio(ow.cpu, ln.cpu), Target: nan},
		{What: "warm wave, kube-apiserver restarted since: ours-warm-new-apiserver apiserver CPU / client-go-list", Value: driver.Ratio(on.cpu, l.cpu), Target: nan},
		{What: "cold wave: ours apiserver CPU / client-go-list", Value: driver.Ratio(o.cpu, l.cpu), Target: nan},
		{What: "cold wave: ours apiserver CPU / client-go-watchlist", Value: driver.Ratio(o.cpu, w.cpu), Target: nan},
		{What: "cold wave: ours-watchlist apiserver CPU / ours", Value: driver.Ratio(summarizeServer(runs, oursWatchList).cpu, o.cpu), Target: nan},
		{What: "ours-warm apiserver allocated / client-go-watchlist", Value: driver.Ratio(ow.allocatedMiB, w.allocatedMiB), Target: nan},
		{What: "ours-warm slowest agent / client-go's slowest (its faster mode)", Value: driver.Ratio(ow.slowest, min(w.slowest, l.slowest)), Target: 1},
		{What: "ours slowest agent / client-go's slowest (its faster mode)", Value: driver.Ratio(o.slowest, min(w.slowest, l.slowest)), Target: 1},
	}
}

// reportWave prints the wave part, when it ran.
func reportWave(w io.Writer, runs []serverRun, agents, pods int, cs []driver.Comparison) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nNode-agent wave: %d agents, each its own process syncing its node's pods (spec.nodeName=<node>) of %d pods, "+
		"started at once against a kube-apiserver restarted for the row and idle; ours-warm from the snapshots ours' agents saved, against the same kube-apiserver, after 1%% of the pods were updated and 1%% deleted and created again; "+
		"ours-warm-new-apiserver the same against a kube-apiserver restarted since; "+
		"kube-apiserver's peak RSS over idle until the last agent synced, its CPU and allocated bytes meanwhile; medians over the rounds:\n\n%s\n", agents, pods, waveTable(runs, agents))
	fmt.Fprintf(w, "Wave ratios:\n\n%s\n", driver.ComparisonTable(cs))
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"github.com/syncer-gen/syncer-gen/internal/deploypod"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The projection part: what a projected syncer saves against the syncers
// that keep whole objects. -proj-pods Pods shaped like a Deployment's
// (internal/deploypod: two containers with env, resources, probes and
// mounts, ten labels, five annotations, an owner reference), each written
// as three field managers would, so that the server records their
// managedFields: created by the controller, labels and annotations applied
// (server-side apply) by a labeller, its status written by the kubelet
// through the status subresource (the test bed has no nodes and no
// scheduler). Then -proj-crs Widgets of about -proj-cr-size bytes (JSON),
// synced by the full WidgetSyncer and the projected one.

const (
	partProjection   = "projection"
	projNamespace    = "bench-proj"
	projCRNamespace  = "bench-proj-crd"
	projPodsName     = child.ProjPods    // the programs' -resource for the part's pods
	projWidgetsName  = child.ProjWidgets // and for its widgets
	projStatusWrites = "status"
)

var projContenders = andWithoutGzip([]driver.Contender{
	{Name: floorRead, What: "raw WatchList stream of the pods (uncompressed, as ours asks) to the end bookmark; frames and event types only"},
	{Name: floorDecode, Steady: true, Slope: true, What: "the same, each pod decoded whole into a corev1.Pod and dropped"},
	{Name: clientGoWatch, Steady: true, Env: []string{watchListGate + "=true"},
		What: "client-go SharedIndexInformer over Pods, WatchListClient on, protobuf, no transform"},
	{Name: clientGoStrip, Steady: true, Env: []string{watchListGate + "=true"},
		What: "client-go SharedIndexInformer over Pods, WatchListClient on, protobuf, with a transform that clears managedFields before the informer stores a pod (a client-go cache.TransformFunc that does what controller-runtime's TransformStripManagedFields does, written out)"},
	{Name: oursStrip, Steady: true, What: "the generated PodSyncer (examples/builtin) with runtime.WithStripManagedFields()"},
	{Name: oursProjected, Steady: true, Slope: true,
		What: "the generated NodePodSyncer (examples/builtin): a projection of Pod to name, namespace, uid, resourceVersion, labels, ownerReferences, spec.nodeName, containers' names and images, status.phase, podIP(s)"},
})

var projCRDContenders = []driver.Contender{
	{Name: ours, What: "the generated WidgetSyncer (examples/crd), default options: whole widgets"},
	{Name: oursProjected, What: "the generated WidgetViewSyncer (examples/crd/views): a projection of Widget to spec.owner, color and size, status.phase"},
}

// The part's resources: ours-projected syncs them projected, any other
// contender as it syncs pods and widgets.
var (
	projPods    = resource{plural: "pods", stampLabel: true}
	projWidgets = resource{plural: "widgets", newObject: widgets.newObject}
)

// projectionOutcome is what the part measured.
type projectionOutcome struct {
	pods, crs []driver.Result
	stored    string // what the server keeps of a pod
	agents    []agentRun
	// agentPeers are the node agent's peers' runs on its pods, idle.
	agentPeers []driver.Result
	agentPods  int // the node agent's node's pods
	n, crN     int
	crSize     int // a widget's payload
}

// projectionRounds creates the pods and widgets and runs the contenders.
func (b *bench) projectionRounds(ctx context.Context) (projectionOutcome, error) {
	out := projectionOutcome{n: b.o.projPods, crN: b.o.projCRs, crSize: b.o.projCRSize}
	pb := *b
	pb.o.resource, pb.o.namespace, pb.o.n, pb.res = projPodsName, projNamespace, b.o.projPods, projPods
	if err := pb.populateProjectionPods(ctx, ""); err != nil {
		return out, err
	}
	var err error
	if out.stored, err = pb.describeStoredPod(ctx); err != nil {
		return out, err
	}
	fmt.Fprintln(os.Stderr, "projection:", out.stored)
	if out.pods, err = pb.runRounds(ctx, "projection ", projContenders); err != nil {
		return out, err
	}
	if out.agents, err = b.agentRounds(ctx); err != nil {
		return out, err
	}
	out.agentPods = b.o.agentPods
	if b.o.quiet > 0 {
		for round := 1; round <= b.o.rounds; round++ {
			peers, err := b.agentPeerRuns(ctx, round)
			out.agentPeers = append(out.agentPeers, peers...)
			if err != nil {
				return out, err
			}
		}
	}

	cb := *b
	cb.o.resource, cb.o.namespace, cb.o.n, cb.o.size, cb.res = projWidgetsName, projCRNamespace, b.o.projCRs, b.o.projCRSize, projWidgets
	if err := b.populateWidgets(ctx, cb.o, projWidgets); err != nil {
		return out, err
	}
	out.crs, err = cb.runRounds(ctx, "projection crd ", projCRDContenders)
	return out, err
}

// populateProjectionPods writes each pod as its three field managers do;
// on node when not "", else over deploypod's 100 nodes.
func (b *bench) populateProjectionPods(ctx context.Context, node string) error {
	pods := b.cs.CoreV1().Pods(b.o.namespace)
	force := true
	return populateWith(ctx, b.cs, b.o, "creating Deployment-shaped pods (3 writes each)", func(ctx context.Context, i int) error {
		name := objectName(i)
		created := deploypod.Pod(b.o.namespace, name, i)
		if node != "" {
			created.Spec.NodeName = node
		}
		for k := range deploypod.LabellerLabels(i) {
			delete(created.Labels, k) // the labeller's own
		}
		created.Annotations = nil
		err := retried(ctx, "create pod "+name, func() error {
			_, err := pods.Create(ctx, created, metav1.CreateOptions{FieldManager: deploypod.Managers[0]})
			if apierrors.IsAlreadyExists(err) {
				return nil
			}
			return err
		})
		if err != nil {
			return err
		}
		apply, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": name, "namespace": b.o.namespace,
				"labels": deploypod.LabellerLabels(i), "annotations": deploypod.Annotations(i)}})
		if err != nil {
			return err
		}
		err = retried(ctx, "apply the labeller's labels to pod "+name, func() error {
			_, err := pods.Patch(ctx, name, types.ApplyPatchType, apply, metav1.PatchOptions{FieldManager: deploypod.Managers[1], Force: &force})
			return err
		})
		if err != nil {
			return err
		}
		return b.writePodStatus(ctx, i, 0)
	})
}

// writePodStatus writes pod i's status, generation gen, as its kubelet
// does: through the status subresource.
func (b *bench) writePodStatus(ctx context.Context, i, gen int) error {
	status, err := json.Marshal(map[string]any{"status": deploypod.Status(i, gen)})
	if err != nil {
		return err
	}
	return retried(ctx, "write the status of pod "+objectName(i), func() error {
		_, err := b.cs.CoreV1().Pods(b.o.namespace).Patch(ctx, objectName(i), types.MergePatchType, status,
			metav1.PatchOptions{FieldManager: deploypod.Managers[2]}, projStatusWrites)
		return err
	})
}

// describeStoredPod reads the first pod back and fails unless the server
// kept what the part is about: the three managers' managedFields, the
// status, the labels and annotations.
func (b *bench) describeStoredPod(ctx context.Context) (string, error) {
	p, err := b.cs.CoreV1().Pods(b.o.namespace).Get(ctx, objectName(0), metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	var managers []string
	for _, m := range p.ManagedFields {
		how := string(m.Operation)
		if m.Subresource != "" {
			how += " of " + m.Subresource
		}
		managers = append(managers, fmt.Sprintf("%s (%s)", m.Manager, how))
	}
	wire, err := p.Marshal()
	if err != nil {
		return "", err
	}
	managedFields, err := (&corev1.Pod{ObjectMeta: metav1.ObjectMeta{ManagedFields: p.ManagedFields}}).Marshal()
	if err != nil {
		return "", err
	}
	desc := fmt.Sprintf("%s as the server keeps it: %d B in protobuf (%d B of them managedFields); %d labels, %d annotations, %d containers, "+
		"status %s with %d conditions and %d container statuses; managedFields of %s",
		p.Name, len(wire), len(managedFields), len(p.Labels), len(p.Annotations), len(p.Spec.Containers),
		p.Status.Phase, len(p.Status.Conditions), len(p.Status.ContainerStatuses), strings.Join(managers, ", "))
	for _, m := range deploypod.Managers {
		if !slices.ContainsFunc(p.ManagedFields, func(e metav1.ManagedFieldsEntry) bool { return e.Manager == m }) {
			return desc, fmt.Errorf("projection: the server recorded no managedFields of %s: %s", m, desc)
		}
	}
	if p.Status.Phase != corev1.PodRunning || len(p.Status.ContainerStatuses) != 2 || len(p.Labels) != 10 || len(p.Annotations) != 5 {
		return desc, fmt.Errorf("projection: the server did not keep the pod as written: %s", desc)
	}
	return desc, nil
}

// projectionComparisons computes the part's ratios; the targets.
func projectionComparisons(pods, crs []driver.Summary) []driver.Comparison {
	p, fr, fd := driver.Find(pods, oursProjected), driver.Find(pods, floorRead), driver.Find(pods, floorDecode)
	cg, cgs, cgsn := driver.Find(pods, clientGoWatch), driver.Find(pods, clientGoStrip), driver.Find(pods, clientGoStrip+noGzip)
	st := driver.Find(pods, oursStrip)
	cp, cf := driver.Find(crs, oursProjected), driver.Find(crs, ours)
	nan := math.NaN()
	return []driver.Comparison{
		{Key: "proj_time_vs_floor_read", What: "ours-projected time to synced / floor-read", Value: driver.Ratio(p.SyncSeconds, fr.SyncSeconds), Target: 1.2},
		{Key: "proj_rss_vs_clientgo_strip", What: "ours-projected peak RSS at sync / client-go-watchlist-strip", Value: driver.Ratio(p.HWMSyncMiB, cgs.HWMSyncMiB), Target: 0.25},
		{Key: "proj_cpu_per_event_vs_floor_decode", What: "ours-projected steady CPU per event / floor-decode", Value: driver.Ratio(p.CPUPer1k, fd.CPUPer1k), Target: 0.9},
		{Key: "proj_event_cpu_slope_vs_floor_decode", What: "ours-projected marginal CPU per event (slope against the update rate) / floor-decode's",
			Value: driver.Ratio(p.SlopePer1k, fd.SlopePer1k), Target: 1, Strict: true},
		{What: "ours-projected peak RSS at sync / client-go-watchlist-strip-nogzip", Value: driver.Ratio(p.HWMSyncMiB, cgsn.HWMSyncMiB), Target: nan},
		{What: "ours-projected store bytes / ours-strip's (Store.Bytes)", Value: driver.Ratio(p.StoreMiB, st.StoreMiB), Target: nan},
		{What: "ours-strip time to synced / floor-read", Value: driver.Ratio(st.SyncSeconds, fr.SyncSeconds), Target: nan},
		{What: "ours-strip peak RSS at sync / client-go-watchlist-strip", Value: driver.Ratio(st.HWMSyncMiB, cgs.HWMSyncMiB), Target: nan},
		{What: "ours-strip peak RSS at sync / client-go-watchlist-strip-nogzip", Value: driver.Ratio(st.HWMSyncMiB, cgsn.HWMSyncMiB), Target: nan},
		{What: "ours-strip steady CPU per event / floor-decode", Value: driver.Ratio(st.CPUPer1k, fd.CPUPer1k), Target: nan},
		{What: "client-go-watchlist-strip peak RSS at sync / client-go-watchlist", Value: driver.Ratio(cgs.HWMSyncMiB, cg.HWMSyncMiB), Target: nan},
		{What: "client-go-watchlist-strip steady CPU per event / floor-decode", Value: driver.Ratio(cgs.CPUPer1k, fd.CPUPer1k), Target: nan},
		{Key: "proj_crd_time_vs_full", What: "widgets: ours-projected time to synced / ours (full)", Value: driver.Ratio(cp.SyncSeconds, cf.SyncSeconds), Target: 0.5},
		{Key: "proj_crd_rss_vs_full", What: "widgets: ours-projected peak RSS at sync / ours (full)", Value: driver.Ratio(cp.HWMSyncMiB, cf.HWMSyncMiB), Target: 0.3},
		{What: "widgets: ours-projected store bytes / ours (full)", Value: driver.Ratio(cp.StoreMiB, cf.StoreMiB), Target: nan},
		{What: "widgets: ours-projected peak RSS over its idle peak / ours (full)'s", Value: driver.Ratio(cp.HWMSyncMiB-cp.IdleMiB, cf.HWMSyncMiB-cf.IdleMiB), Target: nan},
		{What: "widgets: ours-projected peak RssAnon / ours (full)", Value: driver.Ratio(cp.AnonMiB, cf.AnonMiB), Target: nan},
		{What: "ours-projected peak RSS over its idle peak / client-go-watchlist-strip's", Value: driver.Ratio(p.HWMSyncMiB-p.IdleMiB, cgs.HWMSyncMiB-cgs.IdleMiB), Target: nan},
	}
}

// projectionTable is the part's medians, with the bytes our stores hold.
func projectionTable(ss []driver.Summary) *driver.Table {
	t := &driver.Table{Header: []string{"contender", "runs", "objects", "time to synced s", "min-max s", "idle peak RSS MiB", "peak RSS at sync MiB",
		"peak RssAnon MiB", "allocated MiB", "store MiB (Store.Bytes)", "CPU s / 1k events", "lag p50 ms", "lag p99 ms"}}
	for _, s := range ss {
		if s.Runs == 0 {
			continue
		}
		t.Add(s.Contender, fmt.Sprint(s.Runs), driver.Num(s.Objects, 0), driver.Num(s.SyncSeconds, 3),
			driver.Num(s.SyncMin, 2)+"-"+driver.Num(s.SyncMax, 2), driver.Num(s.IdleMiB, 1), driver.Num(s.HWMSyncMiB, 1), driver.Num(s.AnonMiB, 1), driver.Num(s.AllocMiB, 0),
			driver.Num(s.StoreMiB, 1), driver.Num(s.CPUPer1k, 3), driver.Num(s.LagP50ms, 1), driver.Num(s.LagP99ms, 1))
	}
	return t
}

// reportProjection prints the part, when it ran.
func reportProjection(w io.Writer, p projectionOutcome, pods, crs []driver.Summary, cs []driver.Comparison) {
	if len(p.pods) == 0 && len(p.crs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nProjection: %d pods shaped like a Deployment's, written by three field managers (%s); %s. "+
		"Steady state: updates that change a pod's labels; medians over the rounds:\n\n%s\n",
		p.n, strings.Join(deploypod.Managers[:], ", "), p.stored, projectionTable(pods))
	for _, c := range projContenders {
		fmt.Fprintf(w, "- %s: %s\n", c.Name, c.What)
	}
	reportAgent(w, p.agents, p.agentPods)
	reportAgentIdle(w, p.agents, p.agentPeers, p.agentPods)
	fmt.Fprintf(w, "\nA CRD: %d widgets (JSON) with a payload of %d B each; medians over the rounds:\n\n%s\n", p.crN, p.crSize, projectionTable(crs))
	for _, c := range projCRDContenders {
		fmt.Fprintf(w, "- %s: %s\n", c.Name, c.What)
	}
	fmt.Fprintf(w, "\nProjection ratios:\n\n%s\n", driver.ComparisonTable(cs))
}

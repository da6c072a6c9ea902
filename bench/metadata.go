package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The metadata part: programs that read only metadata, on -meta-n
// ConfigMaps of -meta-size bytes of data in a namespace of their own
// (created once, kept for every round), where what a metadata-only client
// saves is the data it never downloads. Our metadata syncer
// (dynamicsyncer.NewMetadata), the generated projection of a ConfigMap's
// metadata (ConfigMapMeta) and the full generated ConfigMapSyncer against
// client-go's metadata informer and a controller-runtime Manager's
// metadata-only cache. Then our unstructured syncer
// (dynamicsyncer.NewUnstructured) against client-go's dynamic informer on
// the contenders part's ConfigMaps (-n of -size). Every run also measures
// what kube-apiserver paid for it (bench.measureServer).

const (
	partMetadata  = "metadata"
	metaNamespace = "bench-meta"
)

var metaContenders = andWithoutGzip([]driver.Contender{
	{Name: oursMetadata, What: "our metadata syncer of configmaps (dynamicsyncer.NewMetadata: *metav1.PartialObjectMetadata, all of metadata), default options; the dynamic program"},
	{Name: oursProjected, What: "the generated ConfigMapMetaSyncer (examples/builtin): a projection of ConfigMap to labels, annotations and ownerReferences, metadata only, which asks for PartialObjectMetadata"},
	{Name: clientGoMetadata, Env: []string{watchListGate + "=true"},
		What: "client-go's metadata informer (metadatainformer: PartialObjectMetadata, protobuf), WatchListClient on"},
	{Name: crMetadata, Env: []string{watchListGate + "=true"},
		What: "a controller-runtime Manager's cache with an informer of PartialObjectMetadata of ConfigMap, the one builder.OnlyMetadata gets (WatchListClient on)"},
	{Name: ours, What: "the generated ConfigMapSyncer (examples/builtin): whole ConfigMaps, default options"},
})

// metaPeers are the metadata-only peers the part's targets take the best of:
// as their users run them, with gzip.
var metaPeers = []string{clientGoMetadata, crMetadata}

var unstructuredContenders = andWithoutGzip([]driver.Contender{
	{Name: oursUnstructured, What: "our unstructured syncer (dynamicsyncer.NewUnstructured: *unstructured.Unstructured, JSON), default options; the dynamic program"},
	{Name: clientGoDynamic, Env: []string{watchListGate + "=true"},
		What: "client-go's dynamic informer (dynamicinformer: *unstructured.Unstructured, JSON), WatchListClient on"},
})

// metadataOutcome is what the part measured.
type metadataOutcome struct {
	meta, unstructured []driver.Result
	stored             string // what the server keeps of a ConfigMap of the part
	n, size            int    // the part's ConfigMaps and their data's size
	uN, uSize          int    // the unstructured comparison's (the contenders part's)
	uResource          string
}

// metadataRounds creates the part's ConfigMaps and runs its contenders,
// then the unstructured ones on the contenders part's ConfigMaps.
func (b *bench) metadataRounds(ctx context.Context) (metadataOutcome, error) {
	out := metadataOutcome{n: b.o.metaN, size: b.o.metaSize, uN: b.o.n, uSize: b.o.size, uResource: b.o.resource}
	mb := *b
	mb.o.resource, mb.o.namespace, mb.o.n, mb.o.size, mb.res = "configmaps", metaNamespace, b.o.metaN, b.o.metaSize, resources["configmaps"]
	mb.measureServer = true
	// 64 KiB each is 320 MB through kube-apiserver and etcd for 5,000:
	// written once (protobuf, o.workers at once), read by every round.
	if err := populate(ctx, mb.cs, mb.cs.CoreV1().RESTClient(), mb.o, mb.res); err != nil {
		return out, err
	}
	var err error
	if out.stored, err = mb.describeStoredConfigMap(ctx); err != nil {
		return out, err
	}
	fmt.Fprintln(os.Stderr, "metadata:", out.stored)
	if out.meta, err = mb.runRounds(ctx, "metadata ", metaContenders); err != nil {
		return out, err
	}
	ub := *b
	ub.measureServer = true
	out.unstructured, err = ub.runRounds(ctx, "unstructured ", unstructuredContenders)
	return out, err
}

// describeStoredConfigMap reads the first ConfigMap back: its size in
// protobuf, and that of its metadata, which is what a metadata-only
// client receives of it.
func (b *bench) describeStoredConfigMap(ctx context.Context) (string, error) {
	cm, err := b.cs.CoreV1().ConfigMaps(b.o.namespace).Get(ctx, objectName(0), metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	whole, err := cm.Marshal()
	if err != nil {
		return "", err
	}
	meta, err := (&metav1.PartialObjectMetadata{ObjectMeta: cm.ObjectMeta}).Marshal()
	if err != nil {
		return "", err
	}
	mf, err := (&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ManagedFields: cm.ManagedFields}}).Marshal()
	if err != nil {
		return "", err
	}
	if len(cm.Data["payload"]) != b.o.size {
		return "", fmt.Errorf("metadata: %s holds %d B of data, want %d", cm.Name, len(cm.Data["payload"]), b.o.size)
	}
	return fmt.Sprintf("%s as the server keeps it: %d B in protobuf, of which %d B its metadata as a PartialObjectMetadata (%d B of them managedFields, %d managers)",
		cm.Name, len(whole), len(meta), len(mf), len(cm.ManagedFields)), nil
}

// bestOf returns the summary of names whose f is the smallest (NaNs
// aside), or one of NaNs when none ran.
func bestOf(ss []driver.Summary, names []string, f func(driver.Summary) float64) driver.Summary {
	best := driver.Find(nil, "")
	for _, n := range names {
		s := driver.Find(ss, n)
		if v := f(s); !math.IsNaN(v) && (math.IsNaN(f(best)) || v < f(best)) {
			best = s
		}
	}
	return best
}

// withGzipOff returns names, each followed by the same run with
// compression off.
func withGzipOff(names []string) []string {
	var out []string
	for _, n := range names {
		out = append(out, n, n+noGzip)
	}
	return out
}

// metadataComparisons computes the part's ratios; the targets: our
// metadata syncer at most 1.0x the best metadata-only peer in time, RSS and
// server CPU, and at most 0.05x the full syncer's bytes on the wire; our
// unstructured syncer at most 0.8x client-go's dynamic informer in time and
// RSS.
func metadataComparisons(meta, unstructured []driver.Summary) []driver.Comparison {
	m, p, full := driver.Find(meta, oursMetadata), driver.Find(meta, oursProjected), driver.Find(meta, ours)
	time := func(s driver.Summary) float64 { return s.SyncSeconds }
	rss := func(s driver.Summary) float64 { return s.HWMSyncMiB }
	cpu := func(s driver.Summary) float64 { return s.ServerCPU }
	overIdle := func(s driver.Summary) float64 { return s.HWMSyncMiB - s.IdleMiB }
	anon := func(s driver.Summary) float64 { return s.AnonMiB }
	bt, br, bc := bestOf(meta, metaPeers, time), bestOf(meta, metaPeers, rss), bestOf(meta, metaPeers, cpu)
	all := withGzipOff(metaPeers)
	at, ar, ac := bestOf(meta, all, time), bestOf(meta, all, rss), bestOf(meta, all, cpu)
	bo, ba := bestOf(meta, metaPeers, overIdle), bestOf(meta, metaPeers, anon)
	cg, cr := driver.Find(meta, clientGoMetadata), driver.Find(meta, crMetadata)
	u, d, dn := driver.Find(unstructured, oursUnstructured), driver.Find(unstructured, clientGoDynamic), driver.Find(unstructured, clientGoDynamic+noGzip)
	nan := math.NaN()
	return []driver.Comparison{
		{Key: "meta_time_vs_best_peer", What: "ours-metadata time to synced / the best metadata-only peer's (" + bt.Contender + ")", Value: driver.Ratio(m.SyncSeconds, bt.SyncSeconds), Target: 1},
		{Key: "meta_rss_vs_best_peer", What: "ours-metadata peak RSS at sync / the best metadata-only peer's (" + br.Contender + ")", Value: driver.Ratio(m.HWMSyncMiB, br.HWMSyncMiB), Target: 1},
		{Key: "meta_server_cpu_vs_best_peer", What: "ours-metadata apiserver CPU / the best metadata-only peer's (" + bc.Contender + ")", Value: driver.Ratio(m.ServerCPU, bc.ServerCPU), Target: 1},
		{Key: "meta_bytes_vs_full", What: "ours-metadata bytes read from the server / ours (the full syncer)", Value: driver.Ratio(m.ReadMiB, full.ReadMiB), Target: 0.05},
		{What: "ours-metadata time to synced / the best peer's, gzip on or off (" + at.Contender + ")", Value: driver.Ratio(m.SyncSeconds, at.SyncSeconds), Target: nan},
		{What: "ours-metadata peak RSS at sync / the best peer's, gzip on or off (" + ar.Contender + ")", Value: driver.Ratio(m.HWMSyncMiB, ar.HWMSyncMiB), Target: nan},
		{What: "ours-metadata apiserver CPU / the best peer's, gzip on or off (" + ac.Contender + ")", Value: driver.Ratio(m.ServerCPU, ac.ServerCPU), Target: nan},
		{What: "ours-metadata peak RSS over its idle peak / the best peer's (" + bo.Contender + ")", Value: driver.Ratio(overIdle(m), overIdle(bo)), Target: nan},
		{What: "ours-metadata peak RssAnon / the best peer's (" + ba.Contender + ")", Value: driver.Ratio(m.AnonMiB, ba.AnonMiB), Target: nan},
		{What: "ours-projected time to synced / the best metadata-only peer's (" + bt.Contender + ")", Value: driver.Ratio(p.SyncSeconds, bt.SyncSeconds), Target: nan},
		{What: "ours-projected peak RSS at sync / the best metadata-only peer's (" + br.Contender + ")", Value: driver.Ratio(p.HWMSyncMiB, br.HWMSyncMiB), Target: nan},
		{What: "ours-projected apiserver CPU / the best metadata-only peer's (" + bc.Contender + ")", Value: driver.Ratio(p.ServerCPU, bc.ServerCPU), Target: nan},
		{What: "ours-projected bytes read / ours (the full syncer)", Value: driver.Ratio(p.ReadMiB, full.ReadMiB), Target: nan},
		{What: "client-go-metadata bytes read / ours (the full syncer)", Value: driver.Ratio(cg.ReadMiB, full.ReadMiB), Target: nan},
		{What: "cr-metadata bytes read / ours (the full syncer)", Value: driver.Ratio(cr.ReadMiB, full.ReadMiB), Target: nan},
		{What: "ours-metadata time to synced / ours (the full syncer)", Value: driver.Ratio(m.SyncSeconds, full.SyncSeconds), Target: nan},
		{What: "ours-metadata apiserver CPU / ours (the full syncer)", Value: driver.Ratio(m.ServerCPU, full.ServerCPU), Target: nan},
		{Key: "unstructured_time_vs_dynamic", What: "unstructured: ours-unstructured time to synced / client-go-dynamic", Value: driver.Ratio(u.SyncSeconds, d.SyncSeconds), Target: 0.8},
		{Key: "unstructured_rss_vs_dynamic", What: "unstructured: ours-unstructured peak RSS at sync / client-go-dynamic", Value: driver.Ratio(u.HWMSyncMiB, d.HWMSyncMiB), Target: 0.8},
		{What: "unstructured: ours-unstructured time to synced / client-go-dynamic-nogzip", Value: driver.Ratio(u.SyncSeconds, dn.SyncSeconds), Target: nan},
		{What: "unstructured: ours-unstructured peak RSS at sync / client-go-dynamic-nogzip", Value: driver.Ratio(u.HWMSyncMiB, dn.HWMSyncMiB), Target: nan},
		{What: "unstructured: ours-unstructured peak RSS over its idle peak / client-go-dynamic's", Value: driver.Ratio(overIdle(u), overIdle(d)), Target: nan},
		{What: "unstructured: ours-unstructured peak RssAnon / client-go-dynamic", Value: driver.Ratio(u.AnonMiB, d.AnonMiB), Target: nan},
		{What: "unstructured: ours-unstructured apiserver CPU / client-go-dynamic", Value: driver.Ratio(u.ServerCPU, d.ServerCPU), Target: nan},
		{Key: "idle_rss_dynamic", What: "ours-metadata idle peak RSS (the dynamic program on an empty namespace)", Value: m.IdleMiB, Target: nan, MiB: true},
	}
}

// metadataTable is a table of the part's medians: the bytes read, the
// stores' and what the server paid.
func metadataTable(ss []driver.Summary) *driver.Table {
	t := &driver.Table{Header: []string{"contender", "runs", "objects", "time to synced s", "min-max s", "MiB read from the server",
		"idle peak RSS MiB", "peak RSS at sync MiB", "peak RssAnon MiB", "allocated MiB", "store MiB (Store.Bytes)", "apiserver CPU s", "apiserver allocated MiB"}}
	for _, s := range ss {
		if s.Runs == 0 {
			continue
		}
		t.Add(s.Contender, fmt.Sprint(s.Runs), driver.Num(s.Objects, 0), driver.Num(s.SyncSeconds, 3),
			driver.Num(s.SyncMin, 2)+"-"+driver.Num(s.SyncMax, 2), driver.Num(s.ReadMiB, 2), driver.Num(s.IdleMiB, 1), driver.Num(s.HWMSyncMiB, 1),
			driver.Num(s.AnonMiB, 1), driver.Num(s.AllocMiB, 0), driver.Num(s.StoreMiB, 1), driver.Num(s.ServerCPU, 3), driver.Num(s.ServerMiB, 0))
	}
	return t
}

// reportMetadata prints the part, when it ran.
func reportMetadata(w io.Writer, m metadataOutcome, meta, unstructured []driver.Summary, cs []driver.Comparison) {
	if len(m.meta) == 0 && len(m.unstructured) == 0 {
		return
	}
	const measured = "bytes read are counted at the child's sockets (rest.Config.Dial wrapped: TLS records, HTTP/2 frames, gzip when compressed) up to synced; " +
		"kube-apiserver's CPU (its threads' run time, /proc/<pid>/task/*/schedstat) and the bytes it allocated (go_memstats_alloc_bytes_total) from the child's start of work to synced"
	fmt.Fprintf(w, "\nMetadata only: %d ConfigMaps of %d B of data in namespace %s; %s; %s; medians over the rounds:\n\n%s\n",
		m.n, m.size, metaNamespace, m.stored, measured, metadataTable(meta))
	for _, c := range metaContenders {
		fmt.Fprintf(w, "- %s: %s\n", c.Name, c.What)
	}
	fmt.Fprintf(w, "\nUnstructured: %d %s of %d B of data (the contenders part's); the same measures; medians over the rounds:\n\n%s\n",
		m.uN, m.uResource, m.uSize, metadataTable(unstructured))
	for _, c := range unstructuredContenders {
		fmt.Fprintf(w, "- %s: %s\n", c.Name, c.What)
	}
	fmt.Fprintln(w)
	for _, s := range append(append([]driver.Summary(nil), meta...), unstructured...) {
		if s.Notes != "" {
			fmt.Fprintf(w, "%s: %s\n", s.Contender, s.Notes)
		}
	}
	fmt.Fprintf(w, "\nMetadata ratios:\n\n%s\n", driver.ComparisonTable(cs))
}

// metadataChart: what each metadata-only contender read, took, held and
// cost the server, against the full syncer and the best peers; and the
// unstructured syncer against client-go's dynamic informer.
func metadataChart(run []string, meta, unstructured []driver.Summary) *driver.Chart {
	read := func(s driver.Summary) float64 { return s.ReadMiB }
	cpu := func(s driver.Summary) float64 { return s.ServerCPU }
	uPanel := func(metric string, decimals int, f func(driver.Summary) float64) driver.Panel {
		p := driver.PanelOf(metric, decimals, unstructured, f, clientGoDynamic)
		for i := range p.Bars {
			p.Bars[i].Contender = "unstructured: " + p.Bars[i].Contender
		}
		p.Refs = []string{"unstructured: " + clientGoDynamic}
		return p
	}
	return &driver.Chart{Title: "Metadata only, and unstructured: medians over the rounds (lower is better)", Run: run, Panels: []driver.Panel{
		driver.PanelOf("metadata: read from the server, MiB", 2, meta, read, ours),
		driver.PanelOf("metadata: time to synced, s", 3, meta, driver.SyncTime, metaPeers...),
		driver.PanelOf("metadata: peak RSS at sync, MiB", 1, meta, driver.SyncRSS, metaPeers...),
		driver.PanelOf("metadata: idle peak RSS (its program on no object), MiB", 1, meta, idleRSS, metaPeers...),
		driver.PanelOf("metadata: apiserver CPU, s", 3, meta, cpu, metaPeers...),
		uPanel("unstructured: time to synced, s", 3, driver.SyncTime),
		uPanel("unstructured: peak RSS at sync, MiB", 1, driver.SyncRSS),
		uPanel("unstructured: apiserver CPU, s", 3, cpu),
	}}
}

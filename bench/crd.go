package main

import (
	"context"
	"fmt"
	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/widgetclient"
	"io"
	"math"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	crdmanifest "github.com/syncer-gen/syncer-gen/examples/crd/config/crd"
	kruntime "k8s.io/apimachinery/pkg/runtime"
)

// The CRD part: the examples' Widget custom resource (JSON only, as every
// CRD), o.n of them of about the size of the ConfigMaps (the payload in an
// annotation), synced by our generated WidgetSyncer and by client-go's
// informer over the same Go type.

const payloadAnnotation = "bench.syncer-gen.io/payload"

var crdContenders = andWithoutGzip([]driver.Contender{
	{Name: ours, Quiet: true, What: "syncer-gen's generated WidgetSyncer (examples/crd), default options: its indexes ByOwner and ByColor"},
	{Name: clientGoWatch, Env: []string{watchListGate + "=true"},
		What: "client-go SharedIndexInformer over *Widget, WatchListClient on: a ListWatch on a REST client of the type, as informer-gen's or controller-runtime's; the owner and color indexes of ours"},
	{Name: clientGoDynamic, Env: []string{watchListGate + "=true"},
		What: "client-go dynamicinformer (unstructured objects), WatchListClient on; the same indexes"},
	{Name: crCache, Quiet: true, Env: []string{watchListGate + "=true"},
		What: "a controller-runtime Manager whose controller watches For(&Widget{}) and whose reconciler reads each widget through the Manager's cache (WatchListClient on); synced: every widget reconciled once"},
	{Name: crSyncer,
		What: "the same Manager and reconciler with the generated WidgetSyncer as the controller's source and the reconciler's reader (ctrlsyncer)"},
})

var widgets = resource{
	plural: child.Widgets,
	newObject: func(ns, name, payload string) kruntime.Object {
		w := &shopv1alpha1.Widget{ObjectMeta: objectMeta(ns, name),
			Spec: shopv1alpha1.WidgetSpec{Owner: "bench", Size: 1, Color: "red"}}
		w.Annotations[payloadAnnotation] = payload
		w.SetGroupVersionKind(shopv1alpha1.SchemeGroupVersion.WithKind("Widget"))
		return w
	},
}

// populateWidgets installs the CRD and creates o.n widgets of res in o.namespace.
func (b *bench) populateWidgets(ctx context.Context, o options, res resource) error {
	if err := crdmanifest.Install(ctx, b.cfg, time.Minute); err != nil {
		return err
	}
	rc, err := widgetclient.New(b.cfg)
	if err != nil {
		return err
	}
	return populate(ctx, b.cs, rc, o, res)
}

// crdRounds installs the CRD, creates the widgets and runs crdContenders.
func (b *bench) crdRounds(ctx context.Context) ([]driver.Result, error) {
	cb := *b
	cb.o.resource, cb.res = widgets.plural, widgets
	if err := b.populateWidgets(ctx, cb.o, widgets); err != nil {
		return nil, err
	}
	return cb.runRounds(ctx, "crd ", crdContenders)
}

// crdComparisons computes the CRD part's ratios against client-go's typed
// informer; the targets are 0.8x on time and RSS.
func crdComparisons(ss []driver.Summary) []driver.Comparison {
	o, t, d := driver.Find(ss, ours), driver.Find(ss, clientGoWatch), driver.Find(ss, clientGoDynamic)
	tn := driver.Find(ss, clientGoWatchNoGzip)
	nan := math.NaN()
	return []driver.Comparison{
		{Key: "crd_time_vs_clientgo", What: "ours time to synced / client-go-watchlist (typed)", Value: driver.Ratio(o.SyncSeconds, t.SyncSeconds), Target: 0.8},
		{Key: "crd_rss_vs_clientgo", What: "ours peak RSS at sync / client-go-watchlist (typed)", Value: driver.Ratio(o.HWMSyncMiB, t.HWMSyncMiB), Target: 0.8},
		{What: "ours time to synced / client-go-watchlist-nogzip (typed)", Value: driver.Ratio(o.SyncSeconds, tn.SyncSeconds), Target: nan},
		{What: "ours peak RSS at sync / client-go-watchlist-nogzip (typed)", Value: driver.Ratio(o.HWMSyncMiB, tn.HWMSyncMiB), Target: nan},
		{What: "ours time to synced / client-go-dynamic", Value: driver.Ratio(o.SyncSeconds, d.SyncSeconds), Target: nan},
		{What: "ours peak RSS at sync / client-go-dynamic", Value: driver.Ratio(o.HWMSyncMiB, d.HWMSyncMiB), Target: nan},
		{Key: "idle_cpu_vs_cr_cache", What: "ours idle CPU per second, synced, no event / cr-cache's (controller-runtime's cache)",
			Value: idleRatio(o.QuietCPUms, driver.Find(ss, crCache).QuietCPUms), Target: 1, Strict: true},
		{What: "ours idle wake-ups per second / cr-cache's", Value: idleRatio(o.QuietWakeups, driver.Find(ss, crCache).QuietWakeups), Target: nan},
		{Key: "cr_time_vs_cache", What: "controller-runtime with the syncer / with its cache: time to the last first reconcile",
			Value: driver.Ratio(driver.Find(ss, crSyncer).SyncSeconds, driver.Find(ss, crCache).SyncSeconds), Target: 0.7},
		{Key: "cr_rss_vs_cache", What: "controller-runtime with the syncer / with its cache: peak RSS",
			Value: driver.Ratio(driver.Find(ss, crSyncer).HWMSyncMiB, driver.Find(ss, crCache).HWMSyncMiB), Target: 0.8},
		{What: "controller-runtime with the syncer / with its cache, compression off (cr-cache-nogzip): time to the last first reconcile",
			Value: driver.Ratio(driver.Find(ss, crSyncer).SyncSeconds, driver.Find(ss, crCache+noGzip).SyncSeconds), Target: nan},
		{What: "ours peak RSS over its idle peak / client-go-watchlist's (typed)", Value: driver.Ratio(o.HWMSyncMiB-o.IdleMiB, t.HWMSyncMiB-t.IdleMiB), Target: nan},
		{What: "controller-runtime with the syncer / with its cache: peak RSS over the idle peak",
			Value: driver.Ratio(driver.Find(ss, crSyncer).HWMSyncMiB-driver.Find(ss, crSyncer).IdleMiB, driver.Find(ss, crCache).HWMSyncMiB-driver.Find(ss, crCache).IdleMiB), Target: nan},
		{Key: "idle_rss_cr_cache", What: "cr-cache idle peak RSS (its program on an empty namespace)", Value: driver.Find(ss, crCache).IdleMiB, Target: nan, MiB: true},
		{Key: "idle_rss_cr_syncer", What: "cr-syncer idle peak RSS", Value: driver.Find(ss, crSyncer).IdleMiB, Target: nan, MiB: true},
	}
}

// reportCRD prints the CRD part, when it ran.
func reportCRD(w io.Writer, rs []driver.Result, ss []driver.Summary, cs []driver.Comparison) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nA CRD: widgets (examples/crd; JSON, as every custom resource), the same payload in an annotation; medians over the rounds:\n\n%s\n",
		driver.MedianTable(ss))
	for _, c := range crdContenders {
		fmt.Fprintf(w, "- %s: %s\n", c.Name, c.What)
	}
	fmt.Fprintf(w, "\nCRD ratios:\n\n%s\n", driver.ComparisonTable(cs))
}

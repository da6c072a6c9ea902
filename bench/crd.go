package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	crdmanifest "github.com/syncer-gen/syncer-gen/examples/crd/config/crd"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// The CRD part: the examples' Widget custom resource (JSON only, as every
// CRD), o.n of them of about the size of the ConfigMaps (the payload in an
// annotation), synced by our generated WidgetSyncer and by client-go's
// informer over the same Go type.

const (
	clientGoDynamic   = "client-go-dynamic"
	payloadAnnotation = "bench.syncer-gen.io/payload"
)

var crdContenders = andWithoutGzip([]driver.Contender{
	{Name: ours, What: "syncer-gen's generated WidgetSyncer (examples/crd), default options: its indexes ByOwner and ByColor"},
	{Name: clientGoWatch, Env: []string{watchListGate + "=true"},
		What: "client-go SharedIndexInformer over *Widget, WatchListClient on: a ListWatch on a REST client of the type, as informer-gen's or controller-runtime's; the owner and color indexes of ours"},
	{Name: clientGoDynamic, Env: []string{watchListGate + "=true"},
		What: "client-go dynamicinformer (unstructured objects), WatchListClient on; the same indexes"},
	{Name: crCache, Env: []string{watchListGate + "=true"},
		What: "a controller-runtime Manager whose controller watches For(&Widget{}) and whose reconciler reads each widget through the Manager's cache (WatchListClient on); synced: every widget reconciled once"},
	{Name: crSyncer,
		What: "the same Manager and reconciler with the generated WidgetSyncer as the controller's source and the reconciler's reader (ctrlsyncer)"},
})

var widgets = resource{
	plural: "widgets",
	newObject: func(ns, name, payload string) kruntime.Object {
		w := &shopv1alpha1.Widget{ObjectMeta: objectMeta(ns, name),
			Spec: shopv1alpha1.WidgetSpec{Owner: "bench", Size: 1, Color: "red"}}
		w.Annotations[payloadAnnotation] = payload
		w.SetGroupVersionKind(shopv1alpha1.SchemeGroupVersion.WithKind("Widget"))
		return w
	},
	kind: widgetKind{},
}

// lookupResource returns the resource a child syncs: one of resources, or widgets.
func lookupResource(name string) (resource, bool) {
	switch name {
	case widgets.plural:
		return widgets, true
	case projPodsName:
		return projPods, true
	case projWidgetsName:
		return projWidgets, true
	}
	r, ok := resources[name]
	return r, ok
}

type widgetKind struct{}

func (widgetKind) run(ctx context.Context, contender string, e *childEnv) (syncOutcome, error) {
	switch contender {
	case ours:
		return runOurs(ctx, e, func(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*shopv1alpha1.Widget], error) {
			s, err := shopsyncers.NewWidgetSyncer(cfg, opts...)
			if err != nil {
				return nil, err
			}
			return s.Syncer, nil
		})
	case clientGoWatch:
		return runInformer[*shopv1alpha1.Widget](ctx, e, newWidgetInformer)
	case crCache, crSyncer:
		return runManager(ctx, e, contender == crSyncer)
	case clientGoDynamic:
		return runInformer[*unstructured.Unstructured](ctx, e, func(cfg *rest.Config, ns, _ string) (cache.SharedIndexInformer, error) {
			client, err := dynamic.NewForConfig(cfg)
			if err != nil {
				return nil, err
			}
			gvr := shopv1alpha1.SchemeGroupVersion.WithResource(widgets.plural)
			return dynamicinformer.NewFilteredDynamicInformer(client, gvr, ns, 0, widgetIndexers(func(obj any, field string) string {
				v, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "spec", field)
				return v
			}), nil).Informer(), nil
		})
	}
	return syncOutcome{}, fmt.Errorf("unknown contender %q for widgets", contender)
}

// widgetClient returns a REST client of widgets' group and version, JSON.
func widgetClient(cfg *rest.Config) (*rest.RESTClient, error) {
	scheme := kruntime.NewScheme()
	if err := shopv1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &shopv1alpha1.SchemeGroupVersion
	c.APIPath = "/apis"
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	c.ContentType = kruntime.ContentTypeJSON
	c.AcceptContentTypes = kruntime.ContentTypeJSON
	return rest.RESTClientFor(c)
}

// newWidgetInformer is the informer that informer-gen would generate for
// widgets, written out: a ListWatch on a typed REST client.
func newWidgetInformer(cfg *rest.Config, ns, _ string) (cache.SharedIndexInformer, error) {
	rc, err := widgetClient(cfg)
	if err != nil {
		return nil, err
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
			l := &shopv1alpha1.WidgetList{}
			return l, rc.Get().Namespace(ns).Resource(widgets.plural).VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(l)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			return rc.Get().Namespace(ns).Resource(widgets.plural).VersionedParams(&opts, metav1.ParameterCodec).Watch(ctx)
		},
	}
	return cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, rc), &shopv1alpha1.Widget{}, 0,
		widgetIndexers(func(obj any, field string) string {
			if field == "owner" {
				return obj.(*shopv1alpha1.Widget).Spec.Owner
			}
			return obj.(*shopv1alpha1.Widget).Spec.Color
		})), nil
}

// widgetIndexers are the indexes that the generated WidgetSyncer keeps
// (ByOwner, ByColor: markers on the type), for client-go's informers, so
// that every contender maintains the same ones; spec reads a field of
// spec.
func widgetIndexers(spec func(obj any, field string) string) cache.Indexers {
	by := func(field string) cache.IndexFunc {
		return func(obj any) ([]string, error) { return []string{spec(obj, field)}, nil }
	}
	return cache.Indexers{"owner": by("owner"), "color": by("color")}
}

// populateWidgets installs the CRD and creates o.n widgets of res in o.namespace.
func (b *bench) populateWidgets(ctx context.Context, o options, res resource) error {
	if err := crdmanifest.Install(ctx, b.cfg, time.Minute); err != nil {
		return err
	}
	rc, err := widgetClient(b.cfg)
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
		{Key: "cr_time_vs_cache", What: "controller-runtime with the syncer / with its cache: time to the last first reconcile",
			Value: driver.Ratio(driver.Find(ss, crSyncer).SyncSeconds, driver.Find(ss, crCache).SyncSeconds), Target: 0.7},
		{Key: "cr_rss_vs_cache", What: "controller-runtime with the syncer / with its cache: peak RSS",
			Value: driver.Ratio(driver.Find(ss, crSyncer).HWMSyncMiB, driver.Find(ss, crCache).HWMSyncMiB), Target: 0.8},
		{What: "controller-runtime with the syncer / with its cache, compression off (cr-cache-nogzip): time to the last first reconcile",
			Value: driver.Ratio(driver.Find(ss, crSyncer).SyncSeconds, driver.Find(ss, crCache+noGzip).SyncSeconds), Target: nan},
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

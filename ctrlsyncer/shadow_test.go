package ctrlsyncer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// shadowed is a Client with shadow reads of every read, its ConfigMaps of
// ns served by a syncer, behind a proxy armed before the watches open;
// the Manager's cache starts the informers it is asked for.
func shadowed(t *testing.T, arm func(*testbed.Proxy)) (*ctrlsyncer.Client, client.Client, string, *testbed.Server) {
	t.Helper()
	srv, direct, ns := server(t)
	proxy := testbed.StartProxy(t, srv)
	arm(proxy)
	mgr := newManager(t, proxy.Config(), logr.Discard(), func(o *ctrl.Options) { o.Cache.ReaderFailOnMissingInformer = false })
	c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)), ctrlsyncer.WithShadowReads(1, 2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	cms, err := ctrlsyncer.Add(mgr, field(c), coresyncers.ConfigMapSyncerIn)
	if err != nil {
		t.Fatal(err)
	}
	start(t, mgr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cms.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	return c, direct, ns, srv
}

// settled polls c's shadow report until every comparison of the reads
// made has ended, and returns it.
func settled(t *testing.T, c *ctrlsyncer.Client, reads int64) ctrlsyncer.ShadowReport {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r := c.ShadowReads()
		var n int64
		for _, v := range r.Counts {
			n += v
		}
		if n >= reads {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d shadow reads compared after a minute: %v", n, reads, r.Counts)
		}
		time.Sleep(20 * time.Millisecond) // polling the report, with a deadline
	}
}

// A proxy drops one watch event on the syncers' side only: the reads are
// the cache's (the reconciler reads the new version), and the shadow
// reports the difference, naming the object, past the lag bound.
func TestShadowReadsReportADroppedEvent(t *testing.T) {
	c, direct, ns, _ := shadowed(t, func(p *testbed.Proxy) { p.DropWatchEventOf("syncer-gen/", "MODIFIED", "x") })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	x := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "x"}, Data: map[string]string{"v": "1"}}
	if err := direct.Create(ctx, x); err != nil {
		t.Fatal(err)
	}
	x.Data["v"] = "2"
	if err := direct.Update(ctx, x); err != nil {
		t.Fatal(err)
	}
	reads := int64(0)
	deadline := time.Now().Add(30 * time.Second)
	for { // until the cache has the update: the reconciler reads the cache
		var got corev1.ConfigMap
		reads++
		if err := c.Get(ctx, client.ObjectKeyFromObject(x), &got); err == nil && got.ResourceVersion == x.ResourceVersion {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the Manager's cache never read x's update")
		}
		time.Sleep(10 * time.Millisecond) // polling the cache, with a deadline
	}
	r := settled(t, c, reads)
	if r.Counts[ctrlsyncer.ShadowDiffered] == 0 || len(r.Differences) == 0 {
		t.Fatalf("no difference reported with the syncers' watch missing x's update: %v", r.Counts)
	}
	if d := r.Differences[0]; d.Object != ns+"/x" || !strings.Contains(d.Cache, x.ResourceVersion) {
		t.Fatalf("the difference reported is %s; want x, at %s in the cache", d, x.ResourceVersion)
	}
}

// A clean run under writes flowing (300 a second): reads of objects and
// of lists report no difference; lag is counted apart.
func TestShadowReadsOfACleanRunUnderWrites(t *testing.T) {
	c, _, ns, srv := shadowed(t, func(*testbed.Proxy) {})
	w := testbed.StartWriter(t, srv.Config(), ns, testbed.WriterOptions{Rate: 300, Population: 100, MaxDuration: 4 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	reads := int64(0)
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		var list corev1.ConfigMapList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		reads++
		for i := 0; i < len(list.Items) && i < 5; i++ {
			var one corev1.ConfigMap
			err := c.Get(ctx, client.ObjectKeyFromObject(&list.Items[i]), &one)
			if err != nil && !strings.Contains(err.Error(), "not found") {
				t.Fatal(err)
			}
			reads++
		}
		time.Sleep(20 * time.Millisecond) // a reconciler's pace, not a synchronisation
	}
	stats := w.Stop()
	r := settled(t, c, reads)
	t.Logf("%d reads under %s: %v", reads, stats, r.Counts)
	if n := r.Counts[ctrlsyncer.ShadowDiffered]; n > 0 {
		t.Fatalf("%d differences on a clean run, the first: %v", n, r.Differences)
	}
	if r.Counts[ctrlsyncer.ShadowMatched] == 0 {
		t.Fatalf("no read compared as a match: %v", r.Counts)
	}
}

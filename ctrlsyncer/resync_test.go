package ctrlsyncer_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// The Manager's cache re-delivers every object every SyncPeriod (10 hours
// unless told otherwise); so do a Client's syncers: their default is
// ctrlsyncer.SyncPeriod (the syncer made with it is the one For makes), and
// a Manager's own period is carried over with WithSyncerOptions: with 1s,
// a controller on syncers reconciles each object again and again with no
// change on the server, as one on the Manager's cache with SyncPeriod 1s.
func TestSyncPeriodCarriesOver(t *testing.T) {
	srv, direct, ns := server(t)
	for i := range 3 {
		if err := direct.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprint("cm-", i)}}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("default", func(t *testing.T) {
		mgr := newManager(t, srv.Config(), logr.Discard())
		c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)))
		if err != nil {
			t.Fatal(err)
		}
		s, err := ctrlsyncer.Add(mgr, field(c), coresyncers.ConfigMapSyncerIn)
		if err != nil {
			t.Fatal(err)
		}
		same, err := coresyncers.ConfigMapSyncerIn(c.Set(), runtime.WithResyncPeriod(ctrlsyncer.SyncPeriod))
		if err != nil {
			t.Fatal(err)
		}
		other, err := coresyncers.ConfigMapSyncerIn(c.Set(), runtime.WithResyncPeriod(0))
		if err != nil {
			t.Fatal(err)
		}
		if same.Syncer != s || other.Syncer == s {
			t.Errorf("the Client's syncer is not the one made with WithResyncPeriod(%s), or also the one made without", ctrlsyncer.SyncPeriod)
		}
	})

	period := time.Second
	reconciledAgain := func(t *testing.T, syncers bool) {
		mgr := newManager(t, srv.Config(), logr.Discard(), func(o *ctrl.Options) {
			o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}}
			o.Cache.SyncPeriod = &period
		})
		r := &requests{}
		b := ctrl.NewControllerManagedBy(mgr).Named(fmt.Sprintf("resync-%t", syncers)).
			WithOptions(controller.TypedOptions[reconcile.Request]{SkipNameValidation: new(true)})
		if syncers {
			c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns), runtime.WithResyncPeriod(period)))
			if err != nil {
				t.Fatal(err)
			}
			b = b.WatchesRawSource(ctrlsyncer.For(mgr, field(c), coresyncers.ConfigMapSyncerIn))
		} else {
			b = b.For(&corev1.ConfigMap{})
		}
		if err := b.Complete(r); err != nil {
			t.Fatal(err)
		}
		start(t, mgr)
		eventually(t, time.Minute, func() string {
			r.mu.Lock()
			defer r.mu.Unlock()
			n := map[string]int{}
			for _, name := range r.seen {
				n[name]++
			}
			for i := range 3 {
				if name := fmt.Sprint("cm-", i); n[name] < 3 {
					return fmt.Sprintf("reconciles %v: want each object at least 3 times (its create, then a resync every %s)", n, period)
				}
			}
			return ""
		})
	}
	t.Run("syncer", func(t *testing.T) { reconciledAgain(t, true) })
	t.Run("cache", func(t *testing.T) { reconciledAgain(t, false) })
}

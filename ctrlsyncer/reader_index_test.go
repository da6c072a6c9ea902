package ctrlsyncer_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// createNumbered creates ConfigMaps cm-<from>..cm-<to-1> in ns, labelled
// with i, their number modulo 5.
func createNumbered(t *testing.T, cs kubernetes.Interface, ns string, from, to int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, to-from)
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				_, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("cm-%04d", i), Labels: map[string]string{"i": fmt.Sprint(i % 5)}}}, metav1.CreateOptions{})
				errs <- err
			}
		})
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// On the real server, a List of one namespace reads the store's namespace
// index: listing the 5 ConfigMaps of one namespace of a syncer that holds
// 1,505 allocates less than 16 bytes per object of the store (a List that
// copied the whole store to filter it allocated 24 bytes for each), and a
// label selector or MatchingFields with InNamespace give that namespace's
// matching objects only.
func TestListOfOneNamespaceCostsItsObjects(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	big, small := srv.Namespace(t), srv.Namespace(t)
	createNumbered(t, cs, big, 0, 1500)
	createNumbered(t, cs, small, 0, 5)
	s, err := runtime.New[*corev1.ConfigMap](srv.Config(), runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true,
		NewList: func() kruntime.Object { return &corev1.ConfigMapList{} }},
		runtime.WithNamespaces(big, small), runtime.WithIndex("i", func(cm *corev1.ConfigMap) []string { return []string{cm.Labels["i"]} }))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(runCtx) }()
	defer func() { stop(); <-done }()
	if err := s.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	r := ctrlsyncer.NewReader()
	ctrlsyncer.Register(r, s)

	names := func(opts ...client.ListOption) string {
		var l corev1.ConfigMapList
		if err := r.List(ctx, &l, opts...); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, cm := range l.Items {
			if cm.Namespace != small {
				t.Errorf("List of %s gave %s/%s", small, cm.Namespace, cm.Name)
			}
			out = append(out, cm.Name)
		}
		return fmt.Sprint(out)
	}
	if got := names(client.InNamespace(small)); got != "[cm-0000 cm-0001 cm-0002 cm-0003 cm-0004]" {
		t.Errorf("List of %s: %s", small, got)
	}
	if got := names(client.InNamespace(small), client.MatchingLabels{"i": "1"}); got != "[cm-0001]" {
		t.Errorf("List of %s, label i=1: %s", small, got)
	}
	if got := names(client.InNamespace(small), client.MatchingFields{"i": "2"}); got != "[cm-0002]" {
		t.Errorf("List of %s, field i=2: %s", small, got)
	}

	const runs = 200
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	for range runs {
		var l corev1.ConfigMapList
		if err := r.List(ctx, &l, client.InNamespace(small)); err != nil || len(l.Items) != 5 {
			t.Fatalf("List: %v, %d items", err, len(l.Items))
		}
	}
	goruntime.ReadMemStats(&after)
	perList := (after.TotalAlloc - before.TotalAlloc) / runs
	t.Logf("a List of 5 of %d objects allocates %d bytes", s.Store().Len(), perList)
	if limit := uint64(16 * s.Store().Len()); perList > limit {
		t.Errorf("a List of 5 of %d objects allocates %d bytes, over %d: it walks the store", s.Store().Len(), perList, limit)
	}
}

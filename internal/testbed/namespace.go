package testbed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Namespace creates a namespace of its own for this run of the test and
// returns its name: the test's name in lower case with a random suffix
// (NodeAgentLive's is node-agent-live-x7k2p), so that the test can run
// again in the same process (go test -count=20 -run Name) and never meets
// what an earlier run left. Call it once per namespace the test needs.
//
// When the test ends, on the shared server, Namespace deletes every object
// the test left in it and then the namespace, as the namespace controller
// would (the test bed runs no controller manager): runs repeated by the
// hundred leave the server as they found it, and a syncer of a
// cluster-wide resource does not meet earlier runs' objects. A server the
// test started for itself is stopped with everything in it; its namespaces
// are left alone.
func (s *Server) Namespace(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns, err := s.Client().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: namespacePrefix(t.Name())},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("testbed: create a namespace for %s: %v", t.Name(), err)
	}
	if s.isShared() {
		t.Cleanup(func() {
			if err := s.deleteNamespace(ns.Name); err != nil {
				t.Errorf("testbed: delete namespace %s: %v", ns.Name, err)
			}
		})
	}
	return ns.Name
}

// namespacePrefix turns a test's name into a namespace's GenerateName:
// TestNodeAgentLive/sub_test -> node-agent-live-sub-test-.
func namespacePrefix(test string) string {
	var b strings.Builder
	prev := '-'
	for _, r := range strings.TrimPrefix(test, "Test") {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
		case prev != '-':
			b.WriteByte('-')
			r = '-'
		default:
			continue
		}
		prev = r
	}
	// The server adds five characters; keep the name short enough to read.
	name := strings.Trim(b.String(), "-")
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "-")
	}
	if name == "" {
		name = "test"
	}
	return name + "-"
}

// deleteNamespace deletes what is in namespace ns, every namespaced
// resource the server serves (pods at once, with no grace: no kubelet
// would confirm), then ns itself: deleted, finalized, and deleted again,
// which is what the namespace controller does.
func (s *Server) deleteNamespace(ns string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := s.Config()
	cfg.WarningHandler = rest.NoWarnings{} // deprecated resources (v1 Endpoints) are deleted all the same
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	lists, err := dc.ServerPreferredNamespacedResources()
	if err != nil && len(lists) == 0 {
		return fmt.Errorf("discover the namespaced resources: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		now  = int64(0)
		// No garbage collector runs either: what the objects own stays
		// unless it is in ns too.
		background = metav1.DeletePropagationBackground
		jobs       = make(chan schema.GroupVersionResource)
	)
	for range 8 {
		wg.Go(func() {
			for gvr := range jobs {
				err := dyn.Resource(gvr).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &now, PropagationPolicy: &background}, metav1.ListOptions{})
				if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) {
					mu.Lock()
					errs = append(errs, fmt.Errorf("delete the %s: %w", gvr.GroupResource(), err))
					mu.Unlock()
				}
			}
		})
	}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if slices.Contains(r.Verbs, "deletecollection") && !strings.Contains(r.Name, "/") {
				jobs <- gv.WithResource(r.Name)
			}
		}
	}
	close(jobs)
	wg.Wait()
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	namespaces := s.Client().CoreV1().Namespaces()
	if err := namespaces.Delete(ctx, ns, metav1.DeleteOptions{}); apierrors.IsNotFound(err) {
		return nil // the test deleted it
	} else if err != nil {
		return err
	}
	terminating, err := namespaces.Get(ctx, ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	terminating.Spec.Finalizers = nil
	if _, err := namespaces.Finalize(ctx, terminating, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err := namespaces.Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

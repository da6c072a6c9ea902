package testbed_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

// Namespace gives each run of a test a namespace of its own, named after
// the test, and when the run ends deletes what it holds and then the
// namespace, on a server with no namespace controller: a pod bound to a
// node (which a graceful deletion would only mark, with no kubelet to
// confirm) and ConfigMaps included. The same test run twice in one
// process (-count=2) makes the same objects in two namespaces, no
// "already exists".
func TestNamespaceIsFreshPerRunAndDeletedAfter(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var names []string
	for range 2 {
		t.Run("Run", func(t *testing.T) {
			ns := srv.Namespace(t)
			if !strings.HasPrefix(ns, "namespace-is-fresh-per-run-and-deleted-a") || len(ns) > 63 {
				t.Errorf("namespace %q: want the test's name, shortened, and a suffix", ns)
			}
			names = append(names, ns)
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "same"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bound"}, Spec: corev1.PodSpec{NodeName: "node-00",
				Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
			if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if len(names) != 2 || names[0] == names[1] {
		t.Fatalf("namespaces of the two runs: %q; want two", names)
	}
	for _, ns := range names {
		if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("namespace %s after its test: %v; want it gone", ns, err)
		}
		for what, err := range map[string]error{
			"configmap": func() error { _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "same", metav1.GetOptions{}); return err }(),
			"pod":       func() error { _, err := cs.CoreV1().Pods(ns).Get(ctx, "bound", metav1.GetOptions{}); return err }(),
		} {
			if !apierrors.IsNotFound(err) {
				t.Errorf("the %s of %s after its test: %v; want it gone", what, ns, err)
			}
		}
	}
}

package testbed_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func TestMain(m *testing.M) { os.Exit(testbed.Main(m)) }

func TestRestartKeepsDataAndCompactionExpiresOldVersions(t *testing.T) {
	srv := testbed.Start(t)
	cs := srv.Client()
	ctx := context.Background()
	cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "keep"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	srv.RestartAPIServer(t)
	t.Logf("restart took %s", time.Since(started))
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "keep", metav1.GetOptions{}); err != nil {
		t.Fatalf("after restart: %v", err)
	}

	rev := srv.Compact(t)
	old, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64)
	if rev <= old {
		t.Fatalf("compacted at %d, not after the object's revision %d", rev, old)
	}
	_, err = cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{
		ResourceVersion: cm.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact,
	})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("list at a compacted revision: got %v, want 410 Gone", err)
	}
}

func TestProxyPause(t *testing.T) {
	srv := testbed.Shared(t)
	p := testbed.StartProxy(t, srv)
	cs := kubernetes.NewForConfigOrDie(p.Config())
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	p.Pause()
	select {
	case _, ok := <-w.ResultChan():
		for ok {
			_, ok = <-w.ResultChan()
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Pause did not cut the open watch")
	}
	_, err = cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	if !apierrors.IsServiceUnavailable(err) {
		t.Fatalf("while paused: got %v, want 503", err)
	}
	p.Resume()
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Fatalf("after Resume: %v", err)
	}
	if p.Watches() != 1 {
		t.Fatalf("Watches() = %d, want 1", p.Watches())
	}
}

package testbed_test

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// drained waits until w's result channel is closed, or fails after d; it
// returns how many ADDED events came before.
func drained(t *testing.T, w watch.Interface, d time.Duration, what string) (added int) {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return added
			}
			if ev.Type == watch.Added {
				added++
			}
		case <-timeout:
			t.Fatalf("%s: the watch still open after %s, %d objects added", what, d, added)
		}
	}
}

// kill -9 ends kube-apiserver at once (no drain of open watches), etcd
// keeps the data, and StartAPIServer brings it back.
func TestKillAPIServer(t *testing.T) {
	srv := testbed.Start(t)
	cs := srv.Client()
	ctx := context.Background()
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "kept"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	started := time.Now()
	srv.KillAPIServer()
	if took := time.Since(started); took > 2*time.Second {
		t.Errorf("KillAPIServer took %s; a SIGKILL does not wait for a drain", took)
	}
	// The graceful stop (SIGTERM) drains for up to 3s and more; a killed
	// server's watches end at once.
	drained(t, w, 5*time.Second, "after kill -9")
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kept", metav1.GetOptions{}); err == nil {
		t.Fatal("the apiserver still answers after kill -9")
	}
	if out, err := exec.Command("pgrep", "-f", "--", "--secure-port="+portOf(srv.URL())).Output(); err == nil {
		t.Fatalf("a kube-apiserver is still running on the port: pids %s", out)
	}
	srv.StartAPIServer(t)
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kept", metav1.GetOptions{}); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
}

func portOf(url string) string {
	for i := len(url) - 1; i >= 0; i-- {
		if url[i] == ':' {
			return url[i+1:]
		}
	}
	return url
}

// CutStreamsAfter ends each watch stream once its share of bytes went
// through, mid-event; CutAll ends the open ones at once without refusing
// the next requests. Both are counted.
func TestProxyCutsStreams(t *testing.T) {
	srv := testbed.Shared(t)
	p := testbed.StartProxy(t, srv)
	cs := kubernetes.NewForConfigOrDie(p.Config())
	ctx := context.Background()
	ns := srv.Namespace(t)
	const objects = 20
	testbed.FillConfigMaps(t, srv.Client(), ns, objects, 1024) // random text: no compression brings 20 KiB under 4 KiB

	p.CutStreamsAfter(4096)
	// A watch from resourceVersion 0 starts with an ADDED event for every
	// object: more than 4 KiB.
	w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	events := drained(t, w, 10*time.Second, "CutStreamsAfter(4096)")
	if events == 0 || events >= objects {
		t.Errorf("the stream cut after 4 KiB delivered %d of %d objects of 1 KiB", events, objects)
	}
	if p.StreamsCut() != 1 {
		t.Fatalf("StreamsCut() = %d, want 1", p.StreamsCut())
	}

	p.CutStreamsAfter(0)
	w1, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w1.Stop()
	w2, err := cs.CoreV1().ConfigMaps("kube-system").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	// Wait until both streams are registered by the proxy before cutting.
	deadline := time.Now().Add(10 * time.Second)
	for p.Watches() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("Watches() = %d, want 3", p.Watches())
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case ev, ok := <-w1.ResultChan():
		t.Fatalf("with CutStreamsAfter(0) the stream ended or sent %v (open %v)", ev, ok)
	case <-time.After(time.Second):
	}
	p.CutAll()
	drained(t, w1, 10*time.Second, "CutAll")
	drained(t, w2, 10*time.Second, "CutAll")
	if p.StreamsCut() != 3 {
		t.Fatalf("StreamsCut() = %d, want 3", p.StreamsCut())
	}
	if _, err := cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("after CutAll: %v", err)
	}
}

// DropWatchEvent drops the one event it names, once, and nothing else: a
// watch through the proxy misses x's first update and gets its second,
// y's, and the deletion it was not asked to drop.
func TestProxyDropsOneWatchEvent(t *testing.T) {
	srv := testbed.Shared(t)
	p := testbed.StartProxy(t, srv)
	ctx := context.Background()
	ns := srv.Namespace(t)
	direct := srv.Client().CoreV1().ConfigMaps(ns)
	for _, name := range []string{"x", "y"} {
		if _, err := direct.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := direct.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.DropWatchEvent("MODIFIED", "x")
	w, err := kubernetes.NewForConfigOrDie(p.Config()).CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	update := func(name, round string) {
		if _, err := direct.Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"round": round}}, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	update("x", "1")
	update("y", "1")
	update("x", "2")
	if err := direct.Delete(ctx, "y", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	timeout := time.After(30 * time.Second)
	for len(got) < 3 {
		select {
		case ev := <-w.ResultChan():
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if !ok {
				t.Fatalf("a %s event of %T", ev.Type, ev.Object)
			}
			got = append(got, string(ev.Type)+" "+cm.Name+" "+cm.Data["round"])
		case <-timeout:
			t.Fatalf("after 30s the watch delivered %q", got)
		}
	}
	if want := "[MODIFIED y 1 MODIFIED x 2 DELETED y 1]"; fmt.Sprint(got) != want {
		t.Errorf("the watch delivered %q, want %s", got, want)
	}
	if p.EventsDropped() != 1 {
		t.Errorf("EventsDropped() = %d, want 1", p.EventsDropped())
	}
}

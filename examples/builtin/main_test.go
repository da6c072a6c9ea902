package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
	"github.com/syncer-gen/syncer-gen/examples/internal/lines"
	"github.com/syncer-gen/syncer-gen/examples/internal/size"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func TestMain(m *testing.M) { os.Exit(testbed.Main(m)) }

// syncedLine is the exact last line of --once.
var syncedLine = regexp.MustCompile(`^synced (\d+) configmaps in \d+\.\d\ds mode=(watchlist|list) store=(` + size.Pattern + `)$`)

// serve starts (or reuses) the server, writes a kubeconfig for it and
// makes a namespace of this run's own (testbed's Namespace), which fill
// then fills. It returns the server, the kubeconfig and the namespace.
func serve(t *testing.T, fill func(ctx context.Context, cs kubernetes.Interface, ns string) error) (*testbed.Server, string, string) {
	t.Helper()
	srv := testbed.Shared(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	ns := srv.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := fill(ctx, srv.Client(), ns); err != nil {
		t.Fatal(err)
	}
	return srv, kubeconfig, ns
}

// setup fills a namespace with n ConfigMaps (see serve).
func setup(t *testing.T, n int) (*testbed.Server, string, string) {
	t.Helper()
	return serve(t, func(ctx context.Context, cs kubernetes.Interface, ns string) error {
		return fixture.CreateConfigMaps(ctx, cs, ns, n, 8, nil)
	})
}

func TestOnceConfigMaps(t *testing.T) {
	const n = 300
	_, kubeconfig, ns := setup(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"--kubeconfig", kubeconfig, "--namespace", ns, "--resource", "configmaps", "--once"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	out := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	last := out[len(out)-1]
	m := syncedLine.FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("last stdout line %q does not match %s; stdout:\n%s", last, syncedLine, stdout.String())
	}
	if got, _ := strconv.Atoi(m[1]); got != n {
		t.Errorf("synced %d configmaps, want %d", got, n)
	}
	if m[2] != "watchlist" {
		t.Errorf("mode=%s, want watchlist on the test bed's server", m[2])
	}
	// Store().Bytes(): each ConfigMap's struct, metadata and data.
	if b, err := size.Parse(m[3]); err != nil || b < n*300 || b > n*10<<10 {
		t.Errorf("store=%s (%v): want 300 B to 10 KiB per ConfigMap", m[3], err)
	}
	if len(out) != 1 {
		t.Errorf("--once printed %d lines on stdout, want only the synced line:\n%s", len(out), stdout.String())
	}
	// stderr is no terminal: plain progress lines, the estimate exact.
	if want := "syncing configmaps: 300/300 (100%) done in "; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr has no %q:\n%s", want, stderr.String())
	}
}

func TestLiveEvents(t *testing.T) {
	srv, kubeconfig, ns := setup(t, 20)
	cms := srv.Client().CoreV1().ConfigMaps(ns)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var stderr bytes.Buffer
	out := lines.Go(ctx, func(ctx context.Context, w io.Writer) error {
		return run(ctx, []string{"--kubeconfig", kubeconfig, "--namespace", ns, "--resource", "configmaps"}, w, &stderr)
	})
	defer out.Stop(ctx)
	expect := func(pattern string) {
		t.Helper()
		if _, err := out.Wait(ctx, regexp.MustCompile(pattern)); err != nil {
			t.Fatal(err)
		}
	}

	expect(`^synced 20 configmaps in \d+\.\d\ds mode=watchlist store=` + size.Pattern + `$`)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}, Data: map[string]string{"a": "1"}}
	cm, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expect(`^added configmap ` + ns + `/new keys=1$`)
	cm.Data["b"] = "2"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(`^updated configmap ` + ns + `/new keys=2$`)
	if err := cms.Delete(ctx, "new", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(`^deleted configmap ` + ns + `/new keys=2$`)

	if err := out.Stop(ctx); err != nil {
		t.Fatalf("run after cancel: %v", err)
	}
	<-out.Done()
	if got := len(out.Lines()); got != 4 {
		t.Errorf("printed %d lines, want the synced line and 3 events:\n%s", got, strings.Join(out.Lines(), "\n"))
	}
}

// An interrupt that comes as the program syncs, once its synced line is
// out but before its wait for the handlers returned, is a clean stop: the
// bench and the demo interrupt it as soon as they read that line.
func TestInterruptedAsItSyncs(t *testing.T) {
	_, kubeconfig, ns := setup(t, 20)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runCtx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	// The synced line is written by the printer's OnSync, which the wait
	// for the handlers waits for: cancelled there, that wait fails.
	stdout := &onLine{prefix: "synced ", do: interrupt}
	var stderr bytes.Buffer
	if err := run(runCtx, []string{"--kubeconfig", kubeconfig, "--namespace", ns, "--resource", "configmaps"}, stdout, &stderr); err != nil {
		t.Fatalf("run interrupted as it synced: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "synced 20 configmaps ") {
		t.Errorf("stdout %q", stdout.String())
	}
}

// onLine is a buffer that calls do when a write starts with prefix.
type onLine struct {
	bytes.Buffer
	prefix string
	do     func()
}

func (w *onLine) Write(p []byte) (int, error) {
	if strings.HasPrefix(string(p), w.prefix) {
		w.do()
	}
	return w.Buffer.Write(p)
}

func TestUnknownResource(t *testing.T) {
	err := run(context.Background(), []string{"--resource", "secrets"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `unknown --resource "secrets"`) ||
		!strings.Contains(err.Error(), "configmaps|deployments|nodepods|nodes|pods") {
		t.Fatalf("run --resource secrets = %v; want an error naming the valid values", err)
	}
}

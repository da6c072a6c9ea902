package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1syncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
	"github.com/syncer-gen/syncer-gen/examples/internal/lines"
	"github.com/syncer-gen/syncer-gen/examples/internal/size"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// syncedPodsLine is the synced line of pods and nodepods: count, mode, store.
var syncedPodsLine = regexp.MustCompile(`^synced (\d+) pods in \d+\.\d\ds mode=(\w+) store=(` + size.Pattern + `)$`)

// setupPods fills a namespace with n Deployment-shaped pods spread over
// nodes nodes (fixture.CreatePods: pod i on node-(i % nodes), Running); see
// serve.
func setupPods(t *testing.T, n, nodes int) (*testbed.Server, string, string) {
	t.Helper()
	return serve(t, func(ctx context.Context, cs kubernetes.Interface, ns string) error {
		return fixture.CreatePods(ctx, cs, ns, n, nodes, 8, nil)
	})
}

// once runs the program with --once and returns its stdout lines.
func once(ctx context.Context, t *testing.T, args ...string) []string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, append(args, "--once"), &stdout, &stderr); err != nil {
		t.Fatalf("run %q: %v\nstderr:\n%s", args, err, stderr.String())
	}
	return strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
}

// The full and the projected syncer of the same pods, --once: the same
// count and the same mode (WatchList: the projection reads the
// initial-events-end bookmark as the full syncer does; with --node, a
// field selector, both list, as the runtime does by default), and the
// projection's store a fraction of the full one's; a node agent's only its
// node's pods.
func TestOncePodsAndNodePods(t *testing.T) {
	const n, nodes = 30, 3
	_, kubeconfig, ns := setupPods(t, n, nodes)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	stores := map[string]int64{}
	for _, c := range []struct {
		name    string
		args    []string
		pods    int
		perNode string
		mode    string
	}{
		{"pods", []string{"--resource", "pods"}, n, "pods per node: node-00=10 node-01=10 node-02=10", "watchlist"},
		{"nodepods", []string{"--resource", "nodepods"}, n, "pods per node: node-00=10 node-01=10 node-02=10", "watchlist"},
		{"agent", []string{"--resource", "nodepods", "--node", "node-02"}, n / nodes, "pods per node: node-02=10", "list"},
		{"full agent", []string{"--resource", "pods", "--node", "node-02"}, n / nodes, "pods per node: node-02=10", "list"},
	} {
		out := once(ctx, t, append([]string{"--kubeconfig", kubeconfig, "--namespace", ns}, c.args...)...)
		if len(out) != 2 || out[0] != c.perNode {
			t.Fatalf("%s: stdout\n%s\nwant %q and the synced line", c.name, strings.Join(out, "\n"), c.perNode)
		}
		m := syncedPodsLine.FindStringSubmatch(out[1])
		if m == nil {
			t.Fatalf("%s: synced line %q does not match %s", c.name, out[1], syncedPodsLine)
		}
		if got, _ := strconv.Atoi(m[1]); got != c.pods {
			t.Errorf("%s: synced %d pods, want %d", c.name, got, c.pods)
		}
		if m[2] != c.mode {
			t.Errorf("%s: mode=%s, want %s", c.name, m[2], c.mode)
		}
		b, err := size.Parse(m[3])
		if err != nil {
			t.Fatal(err)
		}
		stores[c.name] = b
	}
	// internal/deploypod's pods: about 15 KB kept whole (managedFields
	// stripped), under 2 KB projected (README: Projected syncers).
	if r := float64(stores["nodepods"]) / float64(stores["pods"]); r > 0.3 {
		t.Errorf("the projection's store is %.2fx the full one's (%s against %s), want <= 0.3x",
			r, size.Format(stores["nodepods"]), size.Format(stores["pods"]))
	}
	if r := float64(stores["agent"]) / float64(stores["nodepods"]); r < 0.2 || r > 0.5 {
		t.Errorf("one node's pods take %.2fx the store of all of them (%s against %s), want about a third",
			r, size.Format(stores["agent"]), size.Format(stores["nodepods"]))
	}
}

// projectionOf says how proj differs from the projection of what full
// holds on node (every node if ""), "" if it does not. TypeMeta is left
// out: the two syncers need not read a version the same way (a LIST
// page's items come without one).
func projectionOf(full corev1syncers.PodStore, proj corev1syncers.NodePodStore, node string) string {
	want := 0
	for _, f := range full.List() {
		if node != "" && f.Spec.NodeName != node {
			continue
		}
		want++
		p, ok := proj.Get(f.Namespace, f.Name)
		if !ok {
			return fmt.Sprintf("%s/%s (on %s) missing", f.Namespace, f.Name, f.Spec.NodeName)
		}
		w := corev1syncers.NodePodFrom(f)
		w.SetGroupVersionKind(schema.GroupVersionKind{})
		g := p.DeepCopy()
		g.SetGroupVersionKind(schema.GroupVersionKind{})
		if !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("%s/%s:\n got %+v\nwant %+v", f.Namespace, f.Name, g, w)
		}
	}
	if proj.Len() != want {
		return fmt.Sprintf("%d pods, want %d", proj.Len(), want)
	}
	return ""
}

// eventually polls cond until it returns "", failing with its last answer
// after a minute.
func eventually(t *testing.T, what string, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		diff := cond()
		if diff == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s", what, diff)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startSyncer runs s until the test ends and waits for its initial sync.
func startSyncer[T runtime.Object](t *testing.T, s *runtime.Syncer[T]) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	if err := s.WaitForSync(wctx); err != nil {
		t.Fatalf("%s not synced: %v", s.Resource(), err)
	}
}

// podOn creates pod i of ns (fixture.Pod) on node, "" for none.
func podOn(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns, name string, i int, node string) {
	t.Helper()
	p := fixture.Pod(ns, i, 1)
	p.Name, p.Spec.NodeName = name, node
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// writeStatus patches a pod's phase and IP through the status subresource.
func writeStatus(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns, name string, phase corev1.PodPhase, ip string) {
	t.Helper()
	patch := fmt.Sprintf(`{"status":{"phase":%q,"podIP":%q,"podIPs":[{"ip":%q}]}}`, phase, ip, ip)
	if _, err := cs.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
}

// deleteNow deletes a pod at once: with a node and no kubelet to confirm,
// a graceful deletion would only mark it.
func deleteNow(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	if err := cs.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
}

// bind schedules a pod to node, as the scheduler does (pods/binding).
func bind(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns, name, node string) {
	t.Helper()
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	if err := cs.CoreV1().Pods(ns).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// The node agent's store, with the program's options (--node: a field
// selector): only its node's pods, each the projection of what a full
// syncer of every pod holds, object for object; as pods change, are
// scheduled to its node, or are moved away (deleted and made again on
// another node, under the same name), it follows.
func TestNodeAgentStore(t *testing.T) {
	const n, nodes, node = 24, 3, "node-01"
	srv, _, ns := setupPods(t, n, nodes)
	cs := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	full, err := corev1syncers.NewPodSyncer(srv.Config(), syncerOptions(options{namespace: ns})...)
	if err != nil {
		t.Fatal(err)
	}
	all, err := corev1syncers.NewNodePodSyncer(srv.Config(), syncerOptions(options{namespace: ns})...)
	if err != nil {
		t.Fatal(err)
	}
	agent, err := corev1syncers.NewNodePodSyncer(srv.Config(), syncerOptions(options{namespace: ns, node: node})...)
	if err != nil {
		t.Fatal(err)
	}
	startSyncer(t, full.Syncer)
	startSyncer(t, all.Syncer)
	startSyncer(t, agent.Syncer)
	// WatchList, but for the agent: a field selector lists by default.
	if full.Mode() != runtime.ModeWatchList || all.Mode() != runtime.ModeWatchList || agent.Mode() != runtime.ModeList {
		t.Errorf("synced in modes %s (full), %s (projected), %s (agent); want watchlist, watchlist, list", full.Mode(), all.Mode(), agent.Mode())
	}
	if full.Store().Len() != n || agent.Store().Len() != n/nodes {
		t.Fatalf("synced %d pods, the agent %d; want %d and %d", full.Store().Len(), agent.Store().Len(), n, n/nodes)
	}
	same := func(what string) {
		t.Helper()
		eventually(t, what, func() string {
			if d := projectionOf(full.Store(), all.Store(), ""); d != "" {
				return "the projected store: " + d
			}
			if d := projectionOf(full.Store(), agent.Store(), node); d != "" {
				return "the agent's store: " + d
			}
			return ""
		})
	}
	// full holds what the server wrote, once cond says so.
	fullHas := func(what string, cond func(corev1syncers.PodStore) bool) {
		t.Helper()
		eventually(t, what, func() string {
			if !cond(full.Store()) {
				return "not yet in the full syncer's store"
			}
			return ""
		})
		same(what)
	}
	same("synced")

	// A pod of its node changes phase and IP; one of another node too.
	writeStatus(ctx, t, cs, ns, "pod-00004", corev1.PodSucceeded, "10.99.0.4")
	writeStatus(ctx, t, cs, ns, "pod-00005", corev1.PodFailed, "10.99.0.5")
	fullHas("status writes", func(s corev1syncers.PodStore) bool {
		a, _ := s.Get(ns, "pod-00004")
		b, _ := s.Get(ns, "pod-00005")
		return a != nil && a.Status.PodIP == "10.99.0.4" && b != nil && b.Status.PodIP == "10.99.0.5"
	})

	// pod-00007 moves to node-02: deleted, made again there.
	deleteNow(ctx, t, cs, ns, "pod-00007")
	podOn(ctx, t, cs, ns, "pod-00007", 7, "node-02")
	fullHas("pod-00007 moved to node-02", func(s corev1syncers.PodStore) bool {
		p, _ := s.Get(ns, "pod-00007")
		return p != nil && p.Spec.NodeName == "node-02"
	})
	if _, ok := agent.Store().Get(ns, "pod-00007"); ok {
		t.Error("pod-00007, moved to node-02, is still in node-01's agent's store")
	}

	// A new pod, unscheduled, then bound to its node.
	podOn(ctx, t, cs, ns, "scheduled", 100, "")
	fullHas("an unscheduled pod", func(s corev1syncers.PodStore) bool { _, ok := s.Get(ns, "scheduled"); return ok })
	bind(ctx, t, cs, ns, "scheduled", node)
	fullHas("the pod bound to node-01", func(s corev1syncers.PodStore) bool {
		p, _ := s.Get(ns, "scheduled")
		return p != nil && p.Spec.NodeName == node
	})
	if got, want := len(agent.Store().ByNodeName(node)), n/nodes; got != want {
		t.Errorf("ByNodeName(%s) has %d pods, want %d (8, one moved away, one scheduled)", node, got, want)
	}
}

// The node agent live: its node's pods only, a line for each change of
// what it reads, none for other nodes' pods; a pod moved away is deleted,
// a pod scheduled to it added.
//
// A pod's deletion is two writes in quick succession (its
// deletionTimestamp, then the delete), and a handler's queue folds the
// events of an object it has not taken yet (docs/handlers.md): the
// terminating update may be printed or not, but the delete, with the last
// state the agent held, must be, and nothing may come out of order.
func TestNodeAgentLive(t *testing.T) {
	srv, kubeconfig, ns := setupPods(t, 9, 3) // node-01: pods 1, 4 and 7
	cs := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var stderr bytes.Buffer
	out := lines.Go(ctx, func(ctx context.Context, w io.Writer) error {
		return run(ctx, []string{"--kubeconfig", kubeconfig, "--namespace", ns, "--resource", "nodepods", "--node", "node-01"}, w, &stderr)
	})
	defer out.Stop(ctx)
	expect := func(pattern string) {
		t.Helper()
		if _, err := out.Wait(ctx, regexp.MustCompile(pattern)); err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
		}
	}
	images := regexp.QuoteMeta("images=registry.example.com/shop/app-%03d:v1.42.7,registry.example.com/mesh/proxy:v1.26.3")

	expect(`^pods per node: node-01=3$`)
	expect(`^synced 3 pods in \d+\.\d\ds mode=list store=` + size.Pattern + `$`)
	writeStatus(ctx, t, cs, ns, "pod-00002", corev1.PodFailed, "10.99.0.2") // node-02: not its pod
	writeStatus(ctx, t, cs, ns, "pod-00004", corev1.PodSucceeded, "10.99.0.4")
	expect(`^updated pod ` + ns + `/pod-00004 phase=Running→Succeeded ips=10\.64\.0\.4→10\.99\.0\.4$`)
	deleteNow(ctx, t, cs, ns, "pod-00007")
	podOn(ctx, t, cs, ns, "pod-00007", 7, "node-02")
	expect(`^deleted pod ` + ns + `/pod-00007 node=node-01 phase=Running ips=10\.64\.0\.7 ` + fmt.Sprintf(images, 7) + `$`)
	podOn(ctx, t, cs, ns, "scheduled", 10, "")
	bind(ctx, t, cs, ns, "scheduled", "node-01")
	expect(`^added pod ` + ns + `/scheduled node=node-01 phase=Pending ips=<none> ` + fmt.Sprintf(images, 10) + `$`)

	if err := out.Stop(ctx); err != nil {
		t.Fatalf("run after cancel: %v", err)
	}
	<-out.Done()
	// Nothing else: not pod-00002's write, not pod-00007 made again on
	// node-02, not the scheduled pod before it was bound; and the lines in
	// the order of the writes, pod-00007's terminating update, if any,
	// right before its delete.
	got := out.Lines()
	want := []string{
		`^pods per node: node-01=3$`,
		`^synced 3 pods in `,
		`^updated pod ` + ns + `/pod-00004 phase=Running→Succeeded `,
		`^updated pod ` + ns + `/pod-00007 terminating$`,
		`^deleted pod ` + ns + `/pod-00007 node=node-01 `,
		`^added pod ` + ns + `/scheduled node=node-01 `,
	}
	if len(got) == len(want)-1 { // the terminating update folded into the delete
		t.Logf("pod-00007's terminating update was folded into its delete")
		want = append(want[:3], want[4:]...)
	}
	if len(got) != len(want) {
		t.Fatalf("printed %d lines, want the summary, the synced line and 3 events, or 4 with pod-00007's terminating update:\n%s",
			len(got), strings.Join(got, "\n"))
	}
	for i, pattern := range want {
		if !regexp.MustCompile(pattern).MatchString(got[i]) {
			t.Errorf("line %d is %q, want %s; printed:\n%s", i+1, got[i], pattern, strings.Join(got, "\n"))
		}
	}
}

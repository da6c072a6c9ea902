package main

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/internal/lines"
	"github.com/syncer-gen/syncer-gen/examples/internal/size"
)

// tempDir returns the demo's temporary folder named in out.
func tempDir(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`kubeconfig: (\S+)/kubeconfig`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no kubeconfig line in the output:\n%s", out)
	}
	return m[1]
}

// The whole demo, smaller: a server of its own, the two examples built and
// run as child processes, everything stopped at the end.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver and builds the examples; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out lines.Buffer
	err := run(ctx, options{configMaps: 120, widgets: 80, pods: 200, nodes: 4, workers: 8, namespace: "demo"}, newUI(&out, &out))
	text := out.String()
	if err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, text)
	}
	for _, want := range []string{
		"ok widgets.shop.example.com is Established",
		"ok 200 objects in ",
		"\nsynced 120 configmaps in ",
		"ok exited 0; its last line counts the 120 ConfigMaps created",
		"ok 200 Deployment-shaped pods over 4 nodes ",
		"\npods per node: node-00=50 node-01=50 node-02=50 node-03=50\n",
		"\npods per node: node-01=50\n",
		"\nsynced 0 pods in ",
		"ok the projection's store keeps 0.",
		"ok peak RSS: whole pods ",
		"\nsynced 80 widgets in ",
		"\nby owner: alice=20 bob=20 carol=20 dave=20\n",
		"\nadded widget demo/live-1 owner=alice color=red size=5 phase=\"\"\n",
		"\nupdated widget demo/live-1 color=red→green\n",
		"\nupdated widget demo/live-2 phase=\"\"→Ready\n",
		"\ndeleted widget demo/live-1\n",
		"ok each of the 5 changes printed live; crd exited 0 on SIGINT",
		"\nreconciled 81 widgets: ",
		"\ndemo/widget-00000: Pending\n",
		`ok the controller reconciled the change and served syncer_objects{resource="widgets.shop.example.com/v1alpha1"} 81`,
		"ok the 8 shards are held: r1=",
		"ok its shards taken over in ",
		"ok each of the 16 widgets reconciled by the replica holding its shard (printed by ",
		"ok rebalanced: r1=",
		"ok the replicas exited 0 on SIGINT, handing their shards over",
		"ok kube-apiserver and etcd stopped",
		"ok demo done in ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output has no %q", want)
		}
	}
	// The table: whole pods and the projection by WatchList, the agent by
	// LIST (a field selector), the projection's store a fraction.
	for _, row := range []string{
		`(?m)^    pods \(whole\) +200 watchlist +\d+\.\d\ds +` + size.Pattern + ` +` + size.Pattern + ` +` + size.Pattern + `$`,
		`(?m)^    nodepods \(projected\) +200 watchlist +\d+\.\d\ds +` + size.Pattern + ` +` + size.Pattern + ` +` + size.Pattern + `$`,
		`(?m)^    nodepods --node node-01 +50 list +\d+\.\d\ds +` + size.Pattern + ` +` + size.Pattern + ` +` + size.Pattern + `$`,
		`(?m)^    no pods \(--node nowhere\) +0 list +\d+\.\d\ds +0B +- +` + size.Pattern + `$`,
		`(?m)^    projected / whole +\d+\.\d\dx +0\.[0-4]\dx +\d+\.\d\dx$`,
	} {
		if !regexp.MustCompile(row).MatchString(text) {
			t.Errorf("output has no line matching %s", row)
		}
	}
	if strings.Contains(text, "\x1b[") {
		t.Error("output to a buffer has terminal escapes")
	}
	if _, err := os.Stat(tempDir(t, text)); !os.IsNotExist(err) {
		t.Errorf("the demo's temporary folder is still there: %v", err)
	}
	if t.Failed() {
		t.Logf("output:\n%s", text)
	}
}

// A failing step: a clear error naming it, and everything still stopped.
func TestDemoFailureStopsEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out lines.Buffer
	err := run(ctx, options{configMaps: 1, widgets: 1, workers: 1, namespace: "Not_Valid"}, newUI(&out, &out))
	text := out.String()
	if err == nil || !strings.Contains(err.Error(), `step 3, Creating 1 ConfigMaps and 1 Widgets in namespace "Not_Valid": create namespace Not_Valid`) {
		t.Fatalf("run = %v; want the failure of step 3\noutput:\n%s", err, text)
	}
	if !strings.Contains(text, "ok kube-apiserver and etcd stopped") {
		t.Errorf("the server was not stopped:\n%s", text)
	}
	if _, err := os.Stat(tempDir(t, text)); !os.IsNotExist(err) {
		t.Errorf("the demo's temporary folder is still there: %v", err)
	}
}

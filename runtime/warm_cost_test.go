package runtime_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestGetCostMatchesTheServer measures what the warm start's cost rule
// assumes: kube-apiserver's CPU for one GET of an object, in objects of a
// cold sync's WatchList. It takes a few minutes and the whole machine, so
// it runs only when asked: SYNCER_MEASURE_COST=1 go test -run
// TestGetCostMatchesTheServer -v ./runtime/. It fails when the constant in
// the code is off by more than half from what it measures.
func TestGetCostMatchesTheServer(t *testing.T) {
	if os.Getenv("SYNCER_MEASURE_COST") == "" {
		t.Skip("a measurement: set SYNCER_MEASURE_COST=1 to run it")
	}
	const objects, gets = 20000, 2000
	srv := testbed.Start(t)
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ns := srv.Namespace(t)
	testbed.FillConfigMaps(t, cs, ns, objects, 512)
	ctx := context.Background()

	before := apiserverCPU(t, cs)
	s, _ := startSyncer(t, srv.Config(), runtime.WithNamespace(ns))
	if err := s.WaitForSync(ctxTimeout(t, 2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	synced := apiserverCPU(t, cs)
	names := s.Store().Keys()
	rv := s.Store().List()[0].ResourceVersion

	cfg := srv.Config()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.QPS = -1
	pcs := kubernetes.NewForConfigOrDie(cfg)
	work := make(chan string)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for name := range work {
				if _, err := pcs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{ResourceVersion: rv}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for i := range gets {
		work <- names[i*len(names)/gets].Name
	}
	close(work)
	wg.Wait()
	fetched := apiserverCPU(t, cs)

	perObject := (synced - before) / objects
	perGet := (fetched - synced) / gets
	ratio := perGet / perObject
	t.Logf("kube-apiserver %s: a WatchList of %d objects %.2f s of CPU (%.0f µs each), %d GETs %.2f s (%.0f µs each): a GET costs %.1f objects",
		srv.Version(), objects, synced-before, perObject*1e6, gets, fetched-synced, perGet*1e6, ratio)
	if got := float64(runtime.GetCost()); got < ratio/2 || got > ratio*2 {
		t.Errorf("the warm start assumes a GET costs %.0f objects; measured %.1f", got, ratio)
	}
}

// apiserverCPU returns kube-apiserver's process_cpu_seconds_total.
func apiserverCPU(t *testing.T, cs kubernetes.Interface) float64 {
	t.Helper()
	body, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "process_cpu_seconds_total "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatal(fmt.Errorf("no process_cpu_seconds_total in kube-apiserver's /metrics"))
	return 0
}

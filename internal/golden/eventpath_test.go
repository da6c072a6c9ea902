package golden_test

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/deploypod"
	"github.com/syncer-gen/syncer-gen/internal/eventpath"
	corev1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
)

// eventPathPods is how many pods the syncers of the event path hold; the
// updates go to the first 512 in turn.
const eventPathPods = 1000

var pods = runtime.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true,
	NewList: func() kruntime.Object { return &corev1.PodList{} }}

// eventPathPod is a Deployment's pod, in full (status and managedFields).
func eventPathPod(i int) *corev1.Pod { return deploypod.Full("shop", fmt.Sprintf("web-%05d", i), i) }

// projectedFeed is the node agent's projected syncer (NodePod, with its
// index by node) fed the pods in protobuf.
func projectedFeed(tb testing.TB) *eventpath.Feed[*corev1syncers.NodePod] {
	api, err := eventpath.NewAPI(eventpath.Protobuf, eventpath.Objects(eventPathPods, eventPathPod))
	if err != nil {
		tb.Fatal(err)
	}
	s, err := corev1syncers.NewNodePodSyncer(api.Config())
	if err != nil {
		tb.Fatal(err)
	}
	return eventpath.Start(tb, api, s.Syncer)
}

// fullPodFeed is a syncer of whole pods fed the same.
func fullPodFeed(tb testing.TB) *eventpath.Feed[*corev1.Pod] {
	api, err := eventpath.NewAPI(eventpath.Protobuf, eventpath.Objects(eventPathPods, eventPathPod))
	if err != nil {
		tb.Fatal(err)
	}
	s, err := runtime.New[*corev1.Pod](api.Config(), pods)
	if err != nil {
		tb.Fatal(err)
	}
	return eventpath.Start(tb, api, s)
}

// What one live event of a Deployment's pod costs a synced syncer of
// 1,000 of them, from its frame on the wire (protobuf) to its handler's
// OnUpdate, projected to NodePod and in full: see runtime's
// BenchmarkEventPath for what is counted.
func BenchmarkEventPathPod(b *testing.B) {
	b.Run("projected-nodepod-protobuf", func(b *testing.B) { benchFeed(b, projectedFeed(b).Step) })
	b.Run("full-pod-protobuf", func(b *testing.B) { benchFeed(b, fullPodFeed(b).Step) })
}

func benchFeed(b *testing.B, step func()) {
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user and system CPU time of the process, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// Allocations per live event of a projected syncer, frame to handler, may
// not grow past what they were when measured: by `go test -run
// TestEventPathAllocationsProjected -count=5 ./internal/golden/` (go1.26,
// linux/amd64), the same count in every run; not rounded up (see
// runtime's TestEventPathAllocations).
const maxAllocsProjectedEvent = 52

// The allocation guard of a projected syncer's event path (issue 44): a
// change to the generated decoders or the runtime that makes each live
// event allocate more fails here, in make test, with the count.
func TestEventPathAllocationsProjected(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	got := testing.AllocsPerRun(1000, projectedFeed(t).Step)
	t.Logf("projected-nodepod-protobuf: %.2f allocations per event (bound %d)", got, maxAllocsProjectedEvent)
	if got > maxAllocsProjectedEvent {
		t.Errorf("projected-nodepod-protobuf: %.2f allocations per live event, above the bound of %d: what allocates more on the event path?", got, maxAllocsProjectedEvent)
	}
}

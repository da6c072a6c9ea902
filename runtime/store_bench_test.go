package runtime_test

import (
	"fmt"
	"strconv"
	"syscall"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/deploypod"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
)

// What storing an updated Deployment pod costs a syncer, its decode
// included (as the steady state pays both per event): 500 pods updated in
// turn, each decoded from its protobuf bytes and stored (no handler).
func BenchmarkUpdateDeploymentPod(b *testing.B) {
	const pods = 500
	raw := make([][]byte, pods)
	for i := range pods {
		var err error
		if raw[i], err = deploypod.Full("ns", fmt.Sprintf("pod-%03d", i), i).Marshal(); err != nil {
			b.Fatal(err)
		}
	}
	_, d := runtime.NewDriver[*corev1.Pod](runtime.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true})
	rv := 1 << 20
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		p := &corev1.Pod{}
		if err := p.Unmarshal(raw[rv%pods]); err != nil {
			b.Fatal(err)
		}
		rv++
		p.ResourceVersion = strconv.Itoa(rv)
		d.Update(p)
	}
	// CPU time, the process's (the garbage collector's included): on a
	// busy machine it moves less than ns/op, which counts waiting too.
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

package runtime_test

import (
	"fmt"

	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A Driver plays events into a Syncer with no server, the way a unit test
// of code built on a Syncer does. With a server, runtime.New takes a
// *rest.Config and the same handlers see the same events.
func ExampleNewDriver() {
	s, d := runtime.NewDriver[*corev1.Pod](runtime.Resource{},
		runtime.WithIndex("byNode", func(p *corev1.Pod) []string { return []string{p.Spec.NodeName} }))
	s.AddHandler(runtime.HandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod) { fmt.Println("add", p.Name) },
		DeleteFunc: func(p *corev1.Pod, how runtime.Deletion) { fmt.Println("delete", p.Name, how) },
		SyncFunc:   func() { fmt.Println("synced") },
	})
	pod := func(name, node, rv string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv},
			Spec:       corev1.PodSpec{NodeName: node},
		}
	}
	d.Resync(pod("web-1", "node-a", "10"), pod("web-2", "node-b", "11"))
	// web-2 was deleted while the syncer was away: the next resync says so.
	d.Resync(pod("web-1", "node-a", "10"))
	fmt.Println(len(s.Store().ByIndex("byNode", "node-a")), "pod on node-a")
	// Output:
	// add web-1
	// add web-2
	// synced
	// delete web-2 inferred
	// synced
	// 1 pod on node-a
}

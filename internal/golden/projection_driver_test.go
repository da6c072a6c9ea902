package golden_test

import (
	"reflect"
	"testing"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	corev1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A projected type is a controller-runtime client.Object and its list a
// client.ObjectList: ctrlsyncer's Reader serves a projected syncer's store,
// deep copies and index included, as it serves a full one's; the driver
// plays events into it, and handlers get projected objects.
func TestProjectedSyncerThroughControllerRuntime(t *testing.T) {
	s, d := corev1syncers.NewNodePodDriver()
	var added []string
	s.AddHandler(corev1syncers.NodePodHandlerFuncs{AddFunc: func(p *corev1syncers.NodePod) { added = append(added, p.Name) }})
	for i := range 4 {
		d.Add(corev1syncers.NodePodFrom(deploymentPod("shop", i, []string{"node-a", "node-b"}[i%2])))
	}
	d.Sync() // the Reader, as controller-runtime's cache, answers once synced
	if len(added) != 4 {
		t.Fatalf("handler got %v, want 4 pods", added)
	}
	r := ctrlsyncer.NewReader()
	ctrlsyncer.Register(r, s.Syncer)
	var got corev1syncers.NodePod
	if err := r.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: "web-7d9c8b6f5-00001"}, &got); err != nil {
		t.Fatal(err)
	}
	stored, _ := s.Store().Get("shop", "web-7d9c8b6f5-00001")
	if !reflect.DeepEqual(&got, stored) || got.Spec.NodeName != "node-b" {
		t.Errorf("Get: %+v, want a copy of %+v", got, stored)
	}
	got.Spec.Containers[0].Image = "changed" // a deep copy: the store's object stays
	if stored.Spec.Containers[0].Image == "changed" {
		t.Error("the Reader handed out the store's own containers")
	}
	var list corev1syncers.NodePodList
	if err := r.List(t.Context(), &list, client.MatchingFields{"node": "node-a"}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 || list.Items[0].Spec.NodeName != "node-a" || list.Items[1].Spec.NodeName != "node-a" {
		t.Errorf("List by node: %+v", list.Items)
	}
}

package queue_test

import (
	"slices"
	"testing"

	"github.com/syncer-gen/syncer-gen/queue"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
)

var pods = runtime.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}

func pod(name, rv string, owners ...metav1.OwnerReference) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv, OwnerReferences: owners}}
}

// drain takes every key waiting in q, marking each done.
func drain(q workqueue.TypedInterface[runtime.Key]) []string {
	var keys []string
	for q.Len() > 0 {
		k, _ := q.Get()
		keys = append(keys, k.String())
		q.Done(k)
	}
	slices.Sort(keys)
	return keys
}

func TestEnqueueObjectKeys(t *testing.T) {
	q := workqueue.NewTyped[runtime.Key]()
	defer q.ShutDown()
	s, d := runtime.NewDriver[*corev1.Pod](pods)
	s.AddHandler(queue.Enqueue(q, queue.ObjectKey[*corev1.Pod]))

	d.Add(pod("a", "1"), pod("b", "2"))
	d.Update(pod("a", "3"))
	d.Update(pod("a", "4")) // folded with the waiting key
	if got, want := drain(q), []string{"ns/a", "ns/b"}; !slices.Equal(got, want) {
		t.Errorf("after adds and updates: %v, want %v", got, want)
	}
	d.Delete(pod("b", "5"))
	if got, want := drain(q), []string{"ns/b"}; !slices.Equal(got, want) {
		t.Errorf("after a delete: %v, want %v", got, want)
	}
	// A resync in which a is gone: its inferred deletion is enqueued.
	d.Resync()
	if got, want := drain(q), []string{"ns/a"}; !slices.Equal(got, want) {
		t.Errorf("after a resync without a: %v, want %v", got, want)
	}
}

func TestOwnerKey(t *testing.T) {
	yes := true
	ref := func(kind, name string, controller bool) metav1.OwnerReference {
		r := metav1.OwnerReference{APIVersion: "shop.example.com/v1alpha1", Kind: kind, Name: name, UID: types.UID("u-" + name)}
		if controller {
			r.Controller = &yes
		}
		return r
	}
	key := queue.OwnerKey[*corev1.Pod]("Widget")
	for _, c := range []struct {
		name string
		pod  *corev1.Pod
		want []string
	}{
		{"no owner", pod("p", "1"), nil},
		{"other kind", pod("p", "1", ref("ReplicaSet", "rs", true)), nil},
		{"the controller", pod("p", "1", ref("Widget", "w1", false), ref("Widget", "w2", true)), []string{"ns/w2"}},
		{"every owner of the kind", pod("p", "1", ref("Widget", "w1", false), ref("Gadget", "g", false), ref("Widget", "w2", false)), []string{"ns/w1", "ns/w2"}},
		{"a controller of another kind", pod("p", "1", ref("ReplicaSet", "rs", true), ref("Widget", "w1", false)), []string{"ns/w1"}},
	} {
		var got []string
		for _, k := range key(c.pod) {
			got = append(got, k.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}

	// Through a syncer: a pod moving from one owner to another wakes both.
	q := workqueue.NewTyped[runtime.Key]()
	defer q.ShutDown()
	s, d := runtime.NewDriver[*corev1.Pod](pods)
	s.AddHandler(queue.Enqueue(q, key))
	d.Add(pod("p", "1", ref("Widget", "w1", true)))
	drain(q)
	d.Update(pod("p", "2", ref("Widget", "w2", true)))
	if got, want := drain(q), []string{"ns/w1", "ns/w2"}; !slices.Equal(got, want) {
		t.Errorf("owner changed: %v, want %v", got, want)
	}
}

func TestFilter(t *testing.T) {
	key := queue.Filter(func(p *corev1.Pod) bool { return p.Name != "skip" }, queue.ObjectKey[*corev1.Pod])
	if k := key(pod("skip", "1")); k != nil {
		t.Errorf("filtered out pod gave %v", k)
	}
	if k := key(pod("keep", "1")); len(k) != 1 || k[0].Name != "keep" {
		t.Errorf("kept pod gave %v", k)
	}
}

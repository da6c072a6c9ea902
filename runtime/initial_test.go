package runtime_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// adds records which adds a handler was told came from an initial list.
type adds struct {
	mu  sync.Mutex
	got []string // "initial:name", "live:name" or "update:name"
}

func (a *adds) record(kind string, cm *corev1.ConfigMap) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, kind+":"+cm.Name)
}

func (a *adds) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	got := a.got
	a.got = nil
	slices.Sort(got)
	return got
}

func (a *adds) funcs() runtime.HandlerFuncs[*corev1.ConfigMap] {
	return runtime.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc:        func(cm *corev1.ConfigMap) { a.record("live", cm) },
		InitialAddFunc: func(cm *corev1.ConfigMap) { a.record("initial", cm) },
		UpdateFunc:     func(_, cm *corev1.ConfigMap) { a.record("update", cm) },
	}
}

func namedCM(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv, UID: types.UID("u-" + name)}}
}

// A handler with InitialAddFunc (an InitialAdder) tells the adds of an
// initial list from live ones: the first sync's objects, those a resync
// lists anew, and those stored when it is added are initial; objects
// created while the syncer watches are live (a live change folded into an
// initial add that waits makes it live: TestListedFoldsToLive, package
// handlerqueue). Without InitialAddFunc, AddFunc gets both.
func TestInitialListAddsAreToldApart(t *testing.T) {
	s, d := runtime.NewDriver[*corev1.ConfigMap](configMaps)
	var a, plain adds
	s.AddHandler(a.funcs())
	s.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(cm *corev1.ConfigMap) { plain.record("add", cm) }})
	d.Add(namedCM("a", "1"), namedCM("b", "2"))
	d.Sync()
	if got := fmt.Sprint(a.take()); got != "[initial:a initial:b]" {
		t.Errorf("first sync: %s", got)
	}
	d.Add(namedCM("c", "3"))
	if got := fmt.Sprint(a.take()); got != "[live:c]" {
		t.Errorf("created while watching: %s", got)
	}
	d.Resync(namedCM("a", "1"), namedCM("b", "2"), namedCM("c", "3"), namedCM("d", "4"))
	if got := fmt.Sprint(a.take()); got != "[initial:d]" {
		t.Errorf("a resync that listed a new object: %s", got)
	}
	var late adds
	s.AddHandler(late.funcs())
	d.Wait()
	if got := fmt.Sprint(late.take()); got != "[initial:a initial:b initial:c initial:d]" {
		t.Errorf("a handler added after the sync: %s", got)
	}
	if got := fmt.Sprint(plain.take()); got != "[add:a add:b add:c add:d]" {
		t.Errorf("a handler without InitialAddFunc: %s", got)
	}

}

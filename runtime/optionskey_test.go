package runtime

import (
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestOptionsKey(t *testing.T) {
	byNode := func(p *corev1.Pod) []string { return []string{p.Spec.NodeName} }
	a := OptionsKey(WithNamespace("a"), WithIndex("node", byNode), WithLogger(logr.Discard()))
	if b := OptionsKey(WithIndex("node", byNode), WithNamespace("a")); a != b {
		t.Errorf("same options in another order, or without a logger: %s != %s", a, b)
	}
	for _, other := range [][]Option{
		{WithNamespace("b"), WithIndex("node", byNode)},
		{WithNamespace("a")},
		{WithNamespace("a"), WithIndex("node", byNode), WithLabelSelector("x=y")},
		{WithNamespace("a"), WithIndex("node", byNode), WithoutWatchList()},
		{WithNamespace("a"), WithIndex("node", byNode), WithStripManagedFields()},
		{WithNamespace("a"), WithIndex("node", byNode), WithSnapshot("/var/lib/x")},
		{WithNamespace("a"), WithIndex("node", byNode), WithResyncPeriod(time.Hour)},
		{WithNamespace("a"), WithIndex("node", byNode), WithDriftCheck(time.Hour)},
		{WithNamespace("a"), WithIndex("node", byNode), WithLagProbe(time.Minute)},
		{WithNames(Key{Namespace: "a", Name: "x"}), WithIndex("node", byNode)},
		{WithNames(), WithIndex("node", byNode)},
	} {
		if b := OptionsKey(other...); a == b {
			t.Errorf("different options make the same key %s", a)
		}
	}
	if x, y := OptionsKey(WithNames(Key{Namespace: "a", Name: "x"})), OptionsKey(WithNames(Key{Namespace: "a", Name: "y"})); x == y {
		t.Errorf("syncers over other names make the same key %s", x)
	}
}

func TestLastError(t *testing.T) {
	s, d := NewDriver[*corev1.Pod](Resource{Version: "v1", Resource: "pods", Kind: "Pod"})
	if s.LastError() != nil {
		t.Fatalf("LastError before any failure: %v", s.LastError())
	}
	d.Error(apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no")))
	d.Error(apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, ""))
	if e := s.LastError(); e == nil || e.Kind != KindNotFound {
		t.Errorf("LastError = %v, want the not-found one", e)
	}
}

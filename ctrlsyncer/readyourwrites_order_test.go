package ctrlsyncer

import (
	"context"
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// steps is a writer, and the Manager's client under it, that note what
// the Client asks of them, in order.
type steps struct {
	client.Client // nil: only the writes below are called
	fail          error
	did           []string
}

func (s *steps) begin(client.Object) func()                        { return func() { s.did = append(s.did, "end") } }
func (s *steps) wrote(client.Object)                               { s.did = append(s.did, "record") }
func (s *steps) deleted(client.Object, *string)                    { s.did = append(s.did, "record") }
func (s *steps) waitGet(context.Context, client.ObjectKey) error   { return nil }
func (s *steps) waitList(context.Context, runtime.Selection) error { return nil }
func (s *steps) wroteApplied(kruntime.ApplyConfiguration) error {
	s.did = append(s.did, "record")
	return nil
}

func (s *steps) answer() error {
	s.did = append(s.did, "answer")
	return s.fail
}

func (s *steps) Update(context.Context, client.Object, ...client.UpdateOption) error {
	return s.answer()
}
func (s *steps) Delete(context.Context, client.Object, ...client.DeleteOption) error {
	return s.answer()
}
func (s *steps) Apply(context.Context, kruntime.ApplyConfiguration, ...client.ApplyOption) error {
	return s.answer()
}

// A write ends (what a read waiting for it waits for) only once its answer
// is recorded: a read that began while it was under way, and woke when it
// ended, finds the answer and waits for the store to see it. Ended first,
// such a read could return the state before the write (issue 44's CI: one
// run in about a thousand).
func TestClientEndsAWriteOnceItsAnswerIsRecorded(t *testing.T) {
	for _, fail := range []error{nil, errors.New("refused")} {
		s := &steps{fail: fail}
		c := &Client{Client: s, syncers: &syncers{consistent: true, served: map[kind]served{
			kindOf(&corev1.ConfigMap{}): {gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, writes: s}}}}
		obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
		want := []string{"answer", "record", "end"}
		if fail != nil {
			want = []string{"answer", "end"}
		}
		for op, write := range map[string]func() error{
			"Update": func() error { return c.Update(context.Background(), obj) },
			"Delete": func() error { return c.Delete(context.Background(), obj) },
			"Apply":  func() error { return c.Apply(context.Background(), corev1ac.ConfigMap("a", "ns")) },
		} {
			s.did = nil
			if err := write(); !errors.Is(err, fail) {
				t.Fatalf("%s: %v, want %v", op, err, fail)
			}
			if !slices.Equal(s.did, want) {
				t.Errorf("%s (failing: %v): the Client did %v; want %v", op, fail != nil, s.did, want)
			}
		}
	}
}

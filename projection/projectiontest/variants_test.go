package projectiontest

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func configMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", Labels: map[string]string{"a": "1", "b": "2"}, Finalizers: []string{"f"}},
		Data:       map[string]string{"k": "v/é", "l": `"quoted"`},
	}
}

// Every protobuf variant of a message of strings is a message the full
// decoder takes; adding unknown fields and repeating one always changes it
// (a reorder, a split or an emptying may leave it as it was).
func TestProtobufVariantsAreMessages(t *testing.T) {
	b, err := configMap().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(1))
	for i := range 20 {
		for j, v := range ProtobufVariants(b, rnd) {
			var cm corev1.ConfigMap
			if err := cm.Unmarshal(v); err != nil {
				t.Fatalf("round %d, variant %d: %v", i, j, err)
			}
			if (j == 1 || j == 2) && bytes.Equal(v, b) {
				t.Errorf("round %d, variant %d is the message itself", i, j)
			}
		}
	}
}

// Every JSON variant of a document is JSON, and escaping changes how
// strings are written, not what they hold.
func TestJSONVariantsAreJSON(t *testing.T) {
	b, err := json.Marshal(configMap())
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(1))
	vs := JSONVariants(b, rnd)
	if len(vs) == 0 {
		t.Fatal("no variants")
	}
	for i, v := range vs {
		if !json.Valid(v) {
			t.Errorf("variant %d is not JSON: %s", i, v)
		}
	}
	for _, in := range []string{`"a\u00e9/b"`, `"x\"y\\z"`, `"plain"`} {
		var want, got string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		out := escapeASCII([]byte(in))
		if err := json.Unmarshal(out, &got); err != nil || got != want {
			t.Errorf("escapeASCII(%s) = %s, which holds %q (%v), not %q", in, out, got, err, want)
		}
	}
	if JSONVariants([]byte(`{"a":`), rnd) != nil {
		t.Error("variants of malformed JSON")
	}
}

// The list variants give "items" and "metadata" twice, the second written
// otherwise, and each is JSON.
func TestListVariantsRepeatMembers(t *testing.T) {
	b, err := json.Marshal(&corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.ConfigMap{*configMap()}})
	if err != nil {
		t.Fatal(err)
	}
	vs := ListVariants(b, rand.New(rand.NewSource(1)))
	twice := map[string]int{}
	for i, v := range vs {
		if !json.Valid(v) {
			t.Errorf("variant %d is not JSON: %s", i, v)
		}
		for _, name := range []string{"items", "metadata"} {
			if bytes.Count(v, []byte(`"`+name+`":`)) > bytes.Count(b, []byte(`"`+name+`":`)) {
				twice[name]++
			}
		}
	}
	if twice["items"] < 4 || twice["metadata"] < 4 {
		t.Errorf("repeated members: %v, want items and metadata in four variants each", twice)
	}
	if ListVariants([]byte(`[1]`), rand.New(rand.NewSource(1))) != nil {
		t.Error("list variants of an array")
	}
}

package golden_test

import (
	"encoding/json"
	"runtime"
	"testing"

	thingsv1 "github.com/syncer-gen/syncer-gen/internal/golden/api/things/v1"
	corev1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/core/v1"
	thingsv1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/things/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// encoded returns n objects made by mk, each encoded by enc.
func encoded[T any](b *testing.B, n int, mk func(i int) T, enc func(T) ([]byte, error)) [][]byte {
	b.Helper()
	out := make([][]byte, n)
	for i := range out {
		var err error
		if out[i], err = enc(mk(i)); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// benchDecode decodes the inputs in turn, each into a new object, and
// reports the input's size and the heap an object keeps once decoded.
func benchDecode(b *testing.B, inputs [][]byte, decode func([]byte) (any, error)) {
	b.Helper()
	size := 0
	for _, in := range inputs {
		size += len(in)
	}
	keptBytes := kept(b, inputs, decode)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := decode(inputs[i%len(inputs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(size)/float64(len(inputs)), "wire-B/obj")
	b.ReportMetric(keptBytes, "kept-B/obj")
}

// kept returns the heap each decoded object holds, measured across all of
// them after a collection.
func kept(b *testing.B, inputs [][]byte, decode func([]byte) (any, error)) float64 {
	b.Helper()
	objs := make([]any, len(inputs))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i, in := range inputs {
		var err error
		if objs[i], err = decode(in); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(objs)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(len(inputs))
}

// Decoding 2,000 Deployment-shaped pods (DESIGN.md's projection facts) in
// full and projected to the node agent's fields (NodePod), in protobuf and
// in JSON.
func BenchmarkPodDecode(b *testing.B) {
	const n = 2000
	mk := func(i int) *corev1.Pod { return deploymentPod("shop", i, "node-1") }
	proto := encoded(b, n, mk, func(p *corev1.Pod) ([]byte, error) { return p.Marshal() })
	js := encoded(b, n, mk, func(p *corev1.Pod) ([]byte, error) { return json.Marshal(p) })
	b.Run("protobuf/full", func(b *testing.B) {
		benchDecode(b, proto, func(in []byte) (any, error) { p := new(corev1.Pod); return p, p.Unmarshal(in) })
	})
	b.Run("protobuf/projected", func(b *testing.B) {
		benchDecode(b, proto, func(in []byte) (any, error) { p := new(corev1syncers.NodePod); return p, p.Unmarshal(in) })
	})
	b.Run("json/full", func(b *testing.B) {
		benchDecode(b, js, func(in []byte) (any, error) {
			p := new(corev1.Pod)
			return p, kjson.UnmarshalCaseSensitivePreserveInts(in, p)
		})
	})
	b.Run("json/projected", func(b *testing.B) {
		benchDecode(b, js, func(in []byte) (any, error) { p := new(corev1syncers.NodePod); return p, p.UnmarshalJSON(in) })
	})
	// What the runtime saves by calling UnmarshalJSON straight: through
	// sigs.k8s.io/json, the whole object's syntax is checked once more first.
	b.Run("json/projected-via-sigs.k8s.io-json", func(b *testing.B) {
		benchDecode(b, js, func(in []byte) (any, error) {
			p := new(corev1syncers.NodePod)
			return p, kjson.UnmarshalCaseSensitivePreserveInts(in, p)
		})
	})
}

// Decoding 2,000 Certificate-shaped Gadgets (about 2.6 KB of JSON) in full
// and projected to seven fields (GadgetSummary).
func BenchmarkGadgetDecode(b *testing.B) {
	const n = 2000
	js := encoded(b, n, func(i int) *thingsv1.Gadget { return certGadget("shop", i) }, func(g *thingsv1.Gadget) ([]byte, error) { return json.Marshal(g) })
	b.Run("json/full", func(b *testing.B) {
		benchDecode(b, js, func(in []byte) (any, error) {
			g := new(thingsv1.Gadget)
			return g, kjson.UnmarshalCaseSensitivePreserveInts(in, g)
		})
	})
	b.Run("json/projected", func(b *testing.B) {
		benchDecode(b, js, func(in []byte) (any, error) {
			g := new(thingsv1syncers.GadgetSummary)
			return g, g.UnmarshalJSON(in)
		})
	})
}

package memsize

import (
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/syncer-gen/syncer-gen/internal/deploypod"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// heapTolerance is how far the estimate may be from the heap's growth. The
// estimate rounds each allocation to its size class as the allocator does,
// but cannot see the tiny allocator's waste (strings under 16 bytes share
// 16-byte blocks and leave their ends unused), a map grown past its length
// and back, or the runtime's own bookkeeping; measured, those stay within
// a few percent of an API object's bytes.
const heapTolerance = 0.06

// shapes are objects as a syncer stores them: each made by decoding bytes,
// as a syncer does, so that their strings are allocations of their own.
var shapes = []struct {
	name string
	make func(i int) func() any // returns the decoder of object i, its bytes ready
	size func(any) int64
}{
	{"deployment pod (protobuf)", func(i int) func() any {
		b, err := deploypod.Full("ns", fmt.Sprintf("pod-%05d", i), i).Marshal()
		if err != nil {
			panic(err)
		}
		return func() any {
			p := &corev1.Pod{}
			if err := p.Unmarshal(b); err != nil {
				panic(err)
			}
			return p
		}
	}, func(o any) int64 { return For[*corev1.Pod]().Of(o.(*corev1.Pod)) }},
	{"configmap of 2 KB (protobuf)", func(i int) func() any {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("cm-%05d", i), ResourceVersion: fmt.Sprint(i),
			Annotations: map[string]string{"written-at": "0000000000000000000"}},
			Data: map[string]string{"payload": strings.Repeat("x", 2048)}}
		b, err := cm.Marshal()
		if err != nil {
			panic(err)
		}
		return func() any {
			c := &corev1.ConfigMap{}
			if err := c.Unmarshal(b); err != nil {
				panic(err)
			}
			return c
		}
	}, func(o any) int64 { return For[*corev1.ConfigMap]().Of(o.(*corev1.ConfigMap)) }},
	{"custom resource as unstructured (JSON)", func(i int) func() any {
		b, err := json.Marshal(map[string]any{"apiVersion": "shop.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": fmt.Sprintf("w-%05d", i), "namespace": "ns", "labels": map[string]any{"a": "b", "team": "t"}},
			"spec": map[string]any{"owner": "someone", "size": 3 + i, "ratio": 0.5, "on": true,
				"parts": []any{"alpha", "beta", map[string]any{"name": "gamma", "count": 300}}, "notes": strings.Repeat("n", 700)}})
		if err != nil {
			panic(err)
		}
		return func() any {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(b); err != nil {
				panic(err)
			}
			return u
		}
	}, func(o any) int64 { return For[*unstructured.Unstructured]().Of(o.(*unstructured.Unstructured)) }},
}

// The estimate of N decoded objects is the heap's growth, measured after
// a GC, within heapTolerance.
func TestEstimateTracksTheHeap(t *testing.T) {
	skipUnderRace(t)
	const n = 2000
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			decoders := make([]func() any, n)
			for i := range n {
				decoders[i] = s.make(i)
			}
			objs := make([]any, n) // allocated before the first reading
			before := heapInUse()
			for i, d := range decoders {
				objs[i] = d()
			}
			grown := heapInUse() - before
			goruntime.KeepAlive(decoders) // their bytes, allocated before the first reading, must not be freed before the second
			var estimate int64
			for _, o := range objs {
				estimate += s.size(o)
			}
			goruntime.KeepAlive(objs)
			off := float64(estimate-grown) / float64(grown)
			t.Logf("%d objects: heap grew %d B (%d per object), estimate %d B (%d per object): %+.1f%%",
				n, grown, grown/n, estimate, estimate/n, off*100)
			if off > heapTolerance || off < -heapTolerance {
				t.Errorf("estimate %d B is %+.1f%% off the heap's growth %d B; tolerance %.0f%%", estimate, off*100, grown, heapTolerance*100)
			}
		})
	}
}

// skipUnderRace skips a comparison with the heap under the race detector,
// whose allocator is not the one the estimate models (see raceEnabled).
func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's allocator has no tiny allocator: the heap is not what the estimate models")
	}
}

// heapInUse is the bytes of live heap objects after a full collection.
func heapInUse() int64 {
	goruntime.GC()
	goruntime.GC() // a second cycle frees what the first one's finalizers let go
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// projected is a type like a generated projected one: ObjectMeta kept, a
// few fields; its strings may point into one buffer per object.
type projected struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	NodeName string
	Images   []string
}

// Strings that lie one after the other in one buffer count as that buffer,
// rounded up once, not each on its own.
func TestStringsOfOneBufferCountOnce(t *testing.T) {
	parts := []string{"ns", "a-pod-name", "0b1e7c00-0000-4000-8000-000000000001", "12345", "node-017",
		"registry.example.com/shop/app-001:v1.42.7", "registry.example.com/mesh/proxy:v1.26.3"}
	buf := []byte(strings.Join(parts, ""))
	s := make([]string, len(parts))
	start := 0
	for i, p := range parts { // each a view of its bytes in buf, as a decoder that copies strings into one buffer makes them
		s[i] = unsafe.String(&buf[start], len(p))
		start += len(p)
	}
	p := &projected{ObjectMeta: metav1.ObjectMeta{Namespace: s[0], Name: s[1], UID: types.UID(s[2]), ResourceVersion: s[3]},
		NodeName: s[4], Images: s[5:7]}
	got := For[*projected]().Of(p)
	// The struct, the buffer once (its strings in field order: namespace,
	// name... are not all in buffer order, so the walk may split it: at
	// most one rounding per run), the Images slice's array (a sub-slice of
	// s: its capacity is s's rest).
	want := int64(allocSize(unsafe.Sizeof(*p), true) + allocSize(uintptr(len(buf)), false) + allocSize(uintptr(cap(p.Images))*16, true))
	if got > want+2*int64(tinySize) || got < want {
		t.Errorf("Of = %d, want %d (the buffer of %d B once)", got, want, len(buf))
	}
	// Copied one by one, the same strings cost each a rounding of its own.
	q := &projected{ObjectMeta: metav1.ObjectMeta{Namespace: clone(s[0]), Name: clone(s[1]), UID: types.UID(clone(s[2])), ResourceVersion: clone(s[3])},
		NodeName: clone(s[4]), Images: []string{clone(s[5]), clone(s[6])}}
	if sep := For[*projected]().Of(q); sep <= want-int64(allocSize(uintptr(cap(p.Images))*16, true)) {
		t.Errorf("separate strings: Of = %d, not above the shared buffer's %d", sep, want)
	}
}

func clone(s string) string { return string(append([]byte(nil), s...)) }

// Values without pointers and nil pointers hold nothing on the heap; a
// pointer to an empty struct, the struct itself.
func TestNothingAndEmpty(t *testing.T) {
	if got := For[int]().Of(42); got != 0 {
		t.Errorf("int: %d", got)
	}
	if got := For[*corev1.Pod]().Of(nil); got != 0 {
		t.Errorf("nil pod: %d", got)
	}
	if got, want := For[*corev1.Pod]().Of(&corev1.Pod{}), int64(allocSize(unsafe.Sizeof(corev1.Pod{}), true)); got != want {
		t.Errorf("empty pod: %d, want %d", got, want)
	}
	var o any = &corev1.ConfigMap{}
	if got, want := For[any]().Of(o), int64(allocSize(unsafe.Sizeof(corev1.ConfigMap{}), true)); got != want {
		t.Errorf("a pointer in an interface: %d, want %d", got, want)
	}
}

// An interface counts the copy it boxes (a struct) or nothing more (a
// pointer, itself the data word), and what either reaches.
func TestInterfaces(t *testing.T) {
	type boxed struct {
		N int64
		S string
	}
	long := strings.Repeat("s", 100)
	if got, want := For[any]().Of(boxed{1, long}), int64(allocSize(unsafe.Sizeof(boxed{}), true)+allocSize(100, false)); got != want {
		t.Errorf("a boxed struct: %d, want %d", got, want)
	}
	if got, want := For[any]().Of(&boxed{1, long}), int64(allocSize(unsafe.Sizeof(boxed{}), true)+allocSize(100, false)); got != want {
		t.Errorf("a pointer: %d, want %d", got, want)
	}
	var st fmt.Stringer = stringer(long) // an interface with methods: its first word an itab
	if got, want := For[fmt.Stringer]().Of(st), int64(allocSize(unsafe.Sizeof(""), true)+allocSize(100, false)); got != want {
		t.Errorf("a Stringer: %d, want %d", got, want)
	}
	if got := For[fmt.Stringer]().Of(nil); got != 0 {
		t.Errorf("a nil Stringer: %d", got)
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

// A type that reaches itself (a CRD's schema) compiles and walks.
func TestRecursiveType(t *testing.T) {
	leaf := apiextensionsv1.JSONSchemaProps{Type: "string", Description: strings.Repeat("d", 100)}
	root := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"a": leaf, "b": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &leaf}}}}
	got := For[*apiextensionsv1.JSONSchemaProps]().Of(root)
	if min := int64(3*100 + 3*unsafe.Sizeof(leaf)); got < min {
		t.Errorf("Of = %d, below the %d of three schemas with their descriptions", got, min)
	}
}

// Maps: an estimate of a map from its length matches the heap, for small
// and grown maps, with and without pointers, with keys and values stored
// apart (over 128 bytes).
func TestMapShapes(t *testing.T) {
	skipUnderRace(t)
	type big [200]byte
	check := func(name string, n int, fill func() any, size func(any) int64) {
		t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
			const count = 500
			objs := make([]any, count)
			before := heapInUse()
			for i := range objs {
				objs[i] = fill()
			}
			grown := heapInUse() - before
			var est int64
			for _, o := range objs {
				est += size(o) + int64(allocSize(8, true)) // the boxed pointer
			}
			goruntime.KeepAlive(objs)
			if off := float64(est-grown) / float64(grown); off > heapTolerance || off < -heapTolerance {
				t.Errorf("estimate %d, heap grew %d: %+.1f%%", est, grown, off*100)
			}
		})
	}
	for _, n := range []int{1, 8, 9, 14, 15, 100, 1500} {
		check("map[int64]int64", n, func() any {
			m := map[int64]int64{}
			for i := range n {
				m[int64(i)] = int64(i)
			}
			return &m
		}, func(o any) int64 { return For[*map[int64]int64]().Of(o.(*map[int64]int64)) })
		check("map[int32]big", n, func() any {
			m := map[int32]big{}
			for i := range n {
				m[int32(i)] = big{}
			}
			return &m
		}, func(o any) int64 { return For[*map[int32]big]().Of(o.(*map[int32]big)) })
		check("map[int64]*int64", n, func() any {
			m := map[int64]*int64{}
			for i := range n {
				m[int64(i)] = new(int64(i))
			}
			return &m
		}, func(o any) int64 { return For[*map[int64]*int64]().Of(o.(*map[int64]*int64)) })
	}
}

// What walking a Deployment's pod costs a syncer on every event.
func BenchmarkOfDeploymentPod(b *testing.B) {
	raw, err := deploypod.Full("ns", "pod", 7).Marshal()
	if err != nil {
		b.Fatal(err)
	}
	p := &corev1.Pod{}
	if err := p.Unmarshal(raw); err != nil {
		b.Fatal(err)
	}
	s := For[*corev1.Pod]()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		_ = s.Of(p)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(s.Of(p)), "estimate-B")
}

// cpuTime is the user and system CPU time of the process, in nanoseconds:
// on a busy machine it moves less than ns/op, which counts waiting too.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// What decoding the same pod costs, for scale.
func BenchmarkDecodeDeploymentPod(b *testing.B) {
	raw, err := deploypod.Full("ns", "pod", 7).Marshal()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		p := &corev1.Pod{}
		if err := p.Unmarshal(raw); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// What walking a ConfigMap costs.
func BenchmarkOfConfigMap(b *testing.B) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", ResourceVersion: "1",
		Annotations: map[string]string{"written-at": "0000000000000000000"}},
		Data: map[string]string{"payload": strings.Repeat("x", 2048)}}
	s := For[*corev1.ConfigMap]()
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Of(cm)
	}
}

package valuecodec

import (
	"encoding/json"
	"errors"
	"reflect"
	goruntime "runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	kjson "sigs.k8s.io/json"
)

// thing has the shapes that encoding/json does not give back as they were.
type thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              thingSpec `json:"spec"`
	hidden            int
}

type thingSpec struct {
	Hostnames  []string                    `json:"hostnames,omitempty"`
	Labels     map[string]string           `json:"labels,omitempty"`
	Size       resource.Quantity           `json:"size"`
	Limit      *resource.Quantity          `json:"limit,omitempty"`
	Divisor    resource.Quantity           `json:"divisor,omitempty"`
	Port       intstr.IntOrString          `json:"port"`
	Raw        kruntime.RawExtension       `json:"raw,omitempty"`
	Rules      []rule                      `json:"rules,omitempty"`
	Conditions []metav1.Condition          `json:"conditions,omitempty"`
	Resources  corev1.ResourceRequirements `json:"resources"`
	Ratio      float64                     `json:"ratio"`
	Flags      [3]bool                     `json:"flags"`
	Nested     *thingSpec                  `json:"nested,omitempty"`
}

type rule struct {
	Filters     []string         `json:"filters,omitempty"`
	BackendRefs []map[string]int `json:"backendRefs,omitempty"`
}

// serverBytes is an object as a server sends it: empty lists and maps,
// Quantities in their own formats, an absent divisor.
const serverBytes = `{"apiVersion":"x/v1","kind":"Thing","metadata":{"name":"a","namespace":"ns","uid":"u","resourceVersion":"7",
"creationTimestamp":"2026-11-24T10:00:00Z","labels":{},"annotations":{"k":"v"},"finalizers":[]},
"spec":{"hostnames":[],"labels":{},"size":"1.5Ki","limit":"1536","port":"http","raw":{"a":[1,{}]},
"rules":[{"filters":[],"backendRefs":[{}, {"x":1}]}],"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-11-24T10:00:01Z","reason":"R","message":""}],
"resources":{"limits":{"cpu":"100m","memory":"1Gi"},"requests":{}},"ratio":0.1,"flags":[true,false,true],
"nested":{"hostnames":null,"size":"0","port":8080},"any":{"a":[1,2.5,"s",true,null,{}],"b":[]}}}`

func decodeServer(t testing.TB) *thing {
	t.Helper()
	var v thing
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(serverBytes), &v); err != nil {
		t.Fatal(err)
	}
	v.hidden = 42
	return &v
}

// What a server's bytes decode to comes back reflect.DeepEqual, where
// encoding/json gives back nil for [] and {} and Quantities in other
// formats.
func TestRoundTripIsExact(t *testing.T) {
	in := decodeServer(t)
	b, err := Append(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	var out thing
	if err := Decode(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, &out) {
		t.Fatalf("round trip changed the value:\n in %#v\nout %#v", in, &out)
	}
	if out.Spec.Hostnames == nil || out.Spec.Labels == nil || out.Spec.Rules[0].Filters == nil || out.Spec.Nested.Hostnames != nil {
		t.Error("nil and empty not kept apart")
	}
	if out.Spec.Size.String() != "1536" || out.Spec.Size.Format != resource.BinarySI {
		t.Errorf("size %s %s", out.Spec.Size.String(), out.Spec.Size.Format)
	}
}

// A non-nil interface is refused with the path to it.
func TestInterfacesAreRefusedWithTheirPath(t *testing.T) {
	in := decodeServer(t)
	in.Spec.Rules = append(in.Spec.Rules, rule{})
	in.Spec.Nested.Raw.Object = &corev1.ConfigMap{}
	_, err := Append(nil, in)
	var pe *PathError
	if !errors.As(err, &pe) || !errors.Is(err, ErrNotData) || pe.Path != ".Spec.Nested.Raw.Object" {
		t.Fatalf("err %v, want a PathError at .Spec.Nested.Raw.Object", err)
	}
}

// A change of a field changes the fingerprint.
func TestFingerprintFollowsTheType(t *testing.T) {
	type a struct{ X, Y int }
	type b struct{ X, Z int }
	type c struct{ X int }
	if Fingerprint(reflect.TypeFor[a]()) == Fingerprint(reflect.TypeFor[b]()) ||
		Fingerprint(reflect.TypeFor[a]()) == Fingerprint(reflect.TypeFor[c]()) ||
		Fingerprint(reflect.TypeFor[thing]()) != Fingerprint(reflect.TypeOf(thing{})) {
		t.Error("fingerprints do not follow the types")
	}
}

// A change of a field's tag changes the fingerprint: a projected type's
// ObjectMeta tag names the metadata fields it keeps, which its Go shape
// does not show (the field is a metav1.ObjectMeta whatever it keeps).
func TestFingerprintFollowsTheTags(t *testing.T) {
	keepsLabels := func() reflect.Type {
		type pod struct {
			Meta struct{ Name, Labels string } `syncer-gen:"keep=name,labels"`
		}
		return reflect.TypeFor[pod]()
	}()
	keepsName := func() reflect.Type {
		type pod struct {
			Meta struct{ Name, Labels string } `syncer-gen:"keep=name"`
		}
		return reflect.TypeFor[pod]()
	}()
	if keepsLabels.String() != keepsName.String() {
		t.Fatalf("the types are not named alike: %s, %s", keepsLabels, keepsName)
	}
	if Fingerprint(keepsLabels) == Fingerprint(keepsName) {
		t.Error("two types that differ in a tag have the same fingerprint")
	}
}

// Every prefix of an encoding, and every byte changed, is an error or a
// value, never a panic.
func TestDamagedInputIsAnError(t *testing.T) {
	b, err := Append(nil, decodeServer(t))
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(b) {
		if err := Decode(b[:n], new(thing)); err == nil {
			t.Fatalf("a prefix of %d of %d bytes decoded", n, len(b))
		}
	}
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0xff
		Decode(c, new(thing))
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	f()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// No input of n bytes makes Decode allocate more than a small multiple of
// n, and none panics.
func FuzzDecode(f *testing.F) {
	b, err := Append(nil, decodeServer(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		if got := allocated(func() { Decode(b, new(thing)) }); got > 64*uint64(len(b))+16<<10 {
			t.Fatalf("%d bytes of input allocated %d bytes", len(b), got)
		}
	})
}

// Writing and reading an object, against encoding/json, which the
// snapshot used before (go test -bench . -benchmem).
func BenchmarkCodec(b *testing.B) {
	in := decodeServer(b)
	b.Run("value", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = Append(buf[:0], in)
			if err := Decode(buf, new(thing)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(buf)), "bytes/object")
	})
	b.Run("json", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = json.Marshal(in)
			if err := json.Unmarshal(buf, new(thing)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(buf)), "bytes/object")
	})
}

// nested returns a map[string]any nested levels deep, as JSON decodes
// {"a":{"a":...{"leaf":[1,"x"]}...}}.
func nested(levels int) map[string]any {
	m := map[string]any{"leaf": []any{int64(1), "x"}}
	for range levels - 1 {
		m = map[string]any{"a": m, "n": int64(levels)}
	}
	return m
}

// Deep objects (issue 42, defect 9): what a server serves, an object
// nested up to the 10,000 levels of JSON, is written and read back
// exactly: an unstructured object under spec 60 and 5,000 levels deep,
// and a []any of as many levels.
func TestDeepObjectsAreSaved(t *testing.T) {
	type unstructured struct{ Object map[string]any }
	for _, levels := range []int{60, 5000, 10000} {
		in := &unstructured{Object: map[string]any{"apiVersion": "x/v1", "kind": "Deep", "spec": nested(levels)}}
		var list any = []any{"leaf"}
		for range levels - 1 {
			list = []any{list, nil}
		}
		in.Object["list"] = list
		b, err := Append(nil, in)
		if err != nil {
			t.Fatalf("%d levels: %v", levels, err)
		}
		var out unstructured
		if err := Decode(b, &out); err != nil {
			t.Fatalf("%d levels: %v", levels, err)
		}
		if !reflect.DeepEqual(in, &out) {
			t.Fatalf("%d levels: the round trip changed the value", levels)
		}
	}
	// Past any JSON a server serves, a bound, not a stack overflow.
	if _, err := Append(nil, &unstructured{Object: nested(maxDepth / 2)}); !errors.Is(err, ErrTooDeep) {
		t.Errorf("%d levels: err %v, want ErrTooDeep", maxDepth/2, err)
	}
}

// A value that holds itself (a map, a slice or a pointer, as a transform
// may make it; nothing decoded from JSON does) is refused as a cycle, with
// its path, whatever its depth; the same map met twice but not inside
// itself is no cycle.
func TestCyclesAreRefused(t *testing.T) {
	type node struct {
		Name string
		Next *node
	}
	selfMap := map[string]any{"spec": nil}
	selfMap["spec"] = map[string]any{"loop": selfMap}
	deepLoop := nested(1500)
	inner := deepLoop
	for inner["a"] != nil {
		inner = inner["a"].(map[string]any)
	}
	inner["back"] = deepLoop
	selfList := []any{nil}
	selfList[0] = selfList
	ring := &node{Name: "a", Next: &node{Name: "b"}}
	ring.Next.Next = ring
	for name, v := range map[string]any{
		"map":          &struct{ Object map[string]any }{selfMap},
		"deep map":     &struct{ Object map[string]any }{deepLoop},
		"slice":        &struct{ Object any }{selfList},
		"pointer ring": ring,
	} {
		_, err := Append(nil, v)
		var pe *PathError
		if !errors.Is(err, ErrCycle) || !errors.As(err, &pe) || pe.Path == "" {
			t.Errorf("%s: err %v, want ErrCycle with a path", name, err)
		}
	}
	shared := nested(1200)
	twice := &struct{ A, B map[string]any }{shared, shared}
	if _, err := Append(nil, twice); err != nil {
		t.Errorf("one map twice, not inside itself: %v", err)
	}
}

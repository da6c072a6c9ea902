package wire

import (
	"fmt"
	"math"
	"reflect"
	goruntime "runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/syncer-gen/syncer-gen/runtime/internal/intern"
	"github.com/syncer-gen/syncer-gen/runtime/internal/memsize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	kjson "sigs.k8s.io/json"
)

// objectInputs are JSON objects that decodeObject and sigs.k8s.io/json
// must read alike (or decodeObject give up on): every JSON type, numbers
// at int64's edges and past float64's, escapes and UTF-8 (valid and not),
// keys twice, whitespace, nesting past maxDecodeDepth.
var objectInputs = []string{
	`{}`,
	` { "a" : 1 , "b":[ ] ,"c":{ }, "d":null,"e":true,"f":false } `,
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"ns","labels":{"a":"b"}},"data":{"k":"v"}}`,
	`{"n":[0,-0,1,-1,1.0,-1.5,1e3,1E-2,2.5e+10,9223372036854775807,9223372036854775808,-9223372036854775808,-9223372036854775809,123456789012345678901234567890]}`,
	`{"big":1e400}`,
	`{"neg":-1e400}`,
	`{"tiny":1e-400}`,
	`{"s":"tab\tnew\nquote\"slash\/back\\uni\u00e9emoji\ud83d\ude00lone\ud800end"}`,
	"{\"s\":\"caf\xc3\xa9 plain UTF-8\"}",
	"{\"bad\":\"\xff\xfe invalid UTF-8\"}",
	"{\"k\xc3\xa9y\":1,\"esc\\u0041ped\":2}",
	`{"dup":1,"dup":"two","dup":{"x":[1]}}`,
	`{"list":[[],[[]],[{},{"a":[1,"s",null,true]}],"x"]}`,
	`{"empty":"","sp":" ","long":"` + strings.Repeat("x", 3000) + `"}`,
	`{"deep":` + strings.Repeat(`[`, maxDecodeDepth+5) + strings.Repeat(`]`, maxDecodeDepth+5) + `}`,
	`{"deep":` + strings.Repeat(`{"a":`, maxDecodeDepth+5) + `1` + strings.Repeat(`}`, maxDecodeDepth+5) + `}`,
	`{"` + strings.Repeat("k", intern.MaxLen+10) + `":"` + strings.Repeat("v", intern.MaxLen+10) + `"}`,
}

// checkAsSigsJSON fails unless decodeObject reads data as sigs.k8s.io/json
// does into a map[string]any, or gives up, for input eachMember accepts (as
// the decoder's ownKind does before).
func checkAsSigsJSON(t *testing.T, data []byte) {
	t.Helper()
	if !eachMember(data, func(_, _ []byte, _ bool) bool { return true }) {
		return
	}
	want := map[string]any{}
	werr := kjson.UnmarshalCaseSensitivePreserveInts(data, &want)
	got, ok := decodeObject(data)
	switch {
	case !ok:
		return
	case werr != nil:
		t.Fatalf("decodeObject read %q, which sigs.k8s.io/json refuses: %v", data, werr)
	case !reflect.DeepEqual(got, want):
		t.Fatalf("decodeObject(%q) =\n%#v\nsigs.k8s.io/json:\n%#v", data, got, want)
	}
	checkListsExact(t, got)
}

// checkListsExact fails where a list has room it does not use.
func checkListsExact(t *testing.T, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			checkListsExact(t, e)
		}
	case []any:
		if cap(x) != len(x) {
			t.Errorf("a list of %d made with room for %d", len(x), cap(x))
		}
		for _, e := range x {
			checkListsExact(t, e)
		}
	}
}

func TestDecodeObjectAsSigsJSON(t *testing.T) {
	gaveUp := 0
	for _, in := range objectInputs {
		checkAsSigsJSON(t, []byte(in))
		if _, ok := decodeObject([]byte(in)); !ok {
			gaveUp++
		}
	}
	// It reads what it can: the escapes, the invalid UTF-8 and the long
	// strings; it gives up only on the two deep ones and the two infinite
	// numbers.
	if gaveUp != 4 {
		t.Errorf("decodeObject gave up on %d inputs, want 4 (the deep ones, 1e400, -1e400)", gaveUp)
	}
	n, _ := decodeObject([]byte(objectInputs[3]))
	got := n["n"].([]any)
	want := []any{int64(0), int64(0), int64(1), int64(-1), 1.0, -1.5, 1000.0, 0.01, 2.5e10, int64(math.MaxInt64), 9223372036854775808.0,
		int64(math.MinInt64), -9223372036854775809.0, 123456789012345678901234567890.0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("numbers %#v, want %#v", got, want)
	}
}

func FuzzDecodeObject(f *testing.F) {
	for _, in := range objectInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkAsSigsJSON(t, data) })
}

// configMapJSON is a ConfigMap as kube-apiserver writes it in JSON, with a
// payload of size bytes.
func configMapJSON(i, size int) []byte {
	return fmt.Appendf(nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"obj-%06d","namespace":"bench","uid":"6f1c2d3e-aaaa-bbbb-cccc-%012d",`+
		`"resourceVersion":"%d","creationTimestamp":"2026-11-27T06:10:00Z","annotations":{"bench.syncer-gen.io/written-at":"0000000000000000000"},`+
		`"managedFields":[{"manager":"bench","operation":"Update","apiVersion":"v1","time":"2026-11-27T06:10:00Z","fieldsType":"FieldsV1",`+
		`"fieldsV1":{"f:data":{".":{},"f:payload":{}},"f:metadata":{"f:annotations":{".":{},"f:bench.syncer-gen.io/written-at":{}}}}}]},`+
		`"data":{"payload":"%s"}}`, i, i, 1000+i, strings.Repeat("x", size))
}

// Objects decoded one after the other share their keys and the values
// that repeat (kind, namespace, field manager...), not the ones that do
// not (name, uid); what they share lies in the intern pool's slabs.
func TestDecodeObjectShares(t *testing.T) {
	var objs []map[string]any
	for i := range 3 {
		m, ok := decodeObject(configMapJSON(i, 10))
		if !ok {
			t.Fatal("decodeObject gave up on a ConfigMap")
		}
		objs = append(objs, m)
	}
	key := func(m map[string]any, name string) string {
		for k := range m {
			if k == name {
				return k
			}
		}
		t.Fatalf("no key %q", name)
		return ""
	}
	meta := func(m map[string]any) map[string]any { return m["metadata"].(map[string]any) }
	for _, m := range objs[1:] {
		if k0, k := key(meta(objs[0]), "resourceVersion"), key(meta(m), "resourceVersion"); unsafe.StringData(k0) != unsafe.StringData(k) || !intern.Shared(k) {
			t.Error("a key not shared")
		}
	}
	for _, f := range []func(m map[string]any) any{
		func(m map[string]any) any { return m["kind"] },
		func(m map[string]any) any { return meta(m)["namespace"] },
		func(m map[string]any) any { return meta(m)["managedFields"].([]any)[0].(map[string]any)["fieldsType"] },
	} {
		if v := f(objs[2]).(string); !intern.Shared(v) || unsafe.StringData(v) != unsafe.StringData(f(objs[1]).(string)) {
			t.Errorf("repeated value %q not shared", v)
		}
	}
	for _, m := range objs {
		if name := meta(m)["name"].(string); intern.Shared(name) {
			t.Errorf("name %q shared", name)
		}
	}
}

// The runtime's JSON decoder of unstructured objects gives what
// apimachinery's gives (the dynamic client's), through decodeObject or,
// where that gives up, apimachinery's own; the ConfigMaps it decodes hold
// less than apimachinery's (their keys and repeated values shared), and
// memsize's estimate of them, which leaves out what the intern pool holds,
// stays within 3% of the heap they take.
func TestUnstructuredDecoderSharesAndCounts(t *testing.T) {
	gv := schema.GroupVersion{Version: "v1"}
	scheme := kruntime.NewScheme()
	scheme.AddKnownTypeWithName(gv.WithKind("ConfigMap"), &unstructured.Unstructured{})
	scheme.AddKnownTypeWithName(gv.WithKind("ConfigMapList"), &unstructured.UnstructuredList{})
	fast := NewDecoding(serializer.NewCodecFactory(scheme).WithoutConversion(), gv.WithKind("ConfigMap"), reflect.TypeFor[unstructured.Unstructured]())
	var objects kruntime.Decoder
	for _, info := range fast.SupportedMediaTypes() {
		if info.MediaType == kruntime.ContentTypeJSON {
			objects = info.Serializer
		}
	}
	decode := func(data []byte) *unstructured.Unstructured {
		t.Helper()
		obj, gvk, err := objects.Decode(data, nil, nil)
		if err != nil || gvk.Kind != "ConfigMap" {
			t.Fatalf("decode: %v, %v", gvk, err)
		}
		return obj.(*unstructured.Unstructured)
	}
	for _, data := range [][]byte{configMapJSON(7, 100),
		[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":` + strings.Repeat(`{"a":`, maxDecodeDepth+1) + `1` + strings.Repeat(`}`, maxDecodeDepth+1) + `}`)} {
		want := &unstructured.Unstructured{}
		if err := want.UnmarshalJSON(data); err != nil {
			t.Fatal(err)
		}
		if got := decode(data); !reflect.DeepEqual(got, want) {
			t.Errorf("decoded %#v\napimachinery: %#v", got.Object, want.Object)
		}
	}
	if raceEnabled {
		return // the race detector's allocator is not the one memsize models
	}

	const n, size = 2000, 2048
	inputs := make([][]byte, n)
	for i := range inputs {
		inputs[i] = configMapJSON(i, size)
	}
	objs := make([]*unstructured.Unstructured, n)
	heapOf := func(d func([]byte) *unstructured.Unstructured) int64 {
		before := heapInUse()
		for i, in := range inputs {
			objs[i] = d(in)
		}
		grown := heapInUse() - before
		goruntime.KeepAlive(inputs)
		return grown
	}
	plain := heapOf(func(b []byte) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		return u
	})
	clear(objs)
	shared := heapOf(decode)
	var estimate int64
	for _, o := range objs {
		estimate += memsize.For[*unstructured.Unstructured]().Of(o)
	}
	goruntime.KeepAlive(objs)
	t.Logf("%d ConfigMaps of %d B: apimachinery's hold %d B each, the runtime's %d (%.1f%% less); estimate %d",
		n, size, plain/n, shared/n, 100*float64(plain-shared)/float64(plain), estimate/n)
	if saved := float64(plain-shared) / float64(plain); saved < 0.05 {
		t.Errorf("the runtime's ConfigMaps hold %d B each against apimachinery's %d: %.1f%% less, want 5%% or more", shared/n, plain/n, saved*100)
	}
	// Within 3%: counting the shared keys, or the shared values, would be 5% over.
	if off := float64(estimate-shared) / float64(shared); math.Abs(off) > 0.03 {
		t.Errorf("memsize estimates %d B, %+.1f%% off the heap's growth %d B", estimate, off*100, shared)
	}
}

// heapInUse is the bytes of live heap objects after a full collection.
func heapInUse() int64 {
	goruntime.GC()
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// A list decodes as apimachinery decodes it into an UnstructuredList, or
// is left to it: items without apiVersion and kind get the list's, null
// items and missing or null items as there, and what apimachinery refuses
// (items not a list, an item not an object, a list without a kind) goes
// to it, for its error.
func TestDecodeListAsApimachinery(t *testing.T) {
	cm := string(configMapJSON(1, 5))
	bare := `{"metadata":{"name":"b","namespace":"ns"},"data":{"k":"v"}}`
	for _, tc := range []struct {
		data string
		ok   bool
	}{
		{`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"12"},"items":[` + bare + `,` + cm + `]}`, true},
		{`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[null,{},{"kind":"Other"}]}`, true},
		{`{"kind":"ConfigMapList","apiVersion":"v1","items":null}`, true},
		{`{"kind":"ConfigMapList","apiVersion":"v1"}`, true},
		{`{"kind":"WidgetList","apiVersion":"shop.example.com/v1","items":[{"spec":{"n":1.5,"m":[]}}],"items":[` + bare + `]}`, true},
		{`{"kind":"ConfigMapList","apiVersion":"v1","items":{}}`, false},
		{`{"kind":"ConfigMapList","apiVersion":"v1","items":["x"]}`, false},
		{`{"apiVersion":"v1","items":[]}`, false},
		{`{"kind":"ConfigMapList","apiVersion":"a/b/c","items":[]}`, false},
		{`{"kind":"ConfigMapList","apiVersion":"v1","items":[` + bare + `]`, false},
	} {
		want := &unstructured.UnstructuredList{}
		werr := want.UnmarshalJSON([]byte(tc.data))
		if werr == nil && len(want.GroupVersionKind().Kind) == 0 {
			werr = fmt.Errorf("no kind")
		}
		got := &unstructured.UnstructuredList{}
		gvk, ok := decodeList([]byte(tc.data), got)
		switch {
		case ok != tc.ok:
			t.Errorf("decodeList(%s) ok = %v, want %v (apimachinery: %v)", tc.data, ok, tc.ok, werr)
		case ok && werr != nil:
			t.Errorf("decodeList(%s) decoded what apimachinery refuses: %v", tc.data, werr)
		case ok && (!reflect.DeepEqual(got, want) || *gvk != want.GroupVersionKind()):
			t.Errorf("decodeList(%s) =\n%#v, %v\napimachinery:\n%#v", tc.data, got, gvk, want)
		case !ok && (got.Object != nil || got.Items != nil):
			t.Errorf("decodeList(%s) gave up but changed the list: %#v", tc.data, got)
		}
	}
}

package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	kjson "sigs.k8s.io/json"
)

// thing is a custom resource type with a bit of everything JSON can hold.
type thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              thingSpec    `json:"spec"`
	Status            *thingStatus `json:"status,omitempty"`
}

type thingSpec struct {
	Count  int64                 `json:"count"`
	Small  int32                 `json:"small,omitempty"`
	Ratio  float64               `json:"ratio"`
	Text   string                `json:"text"`
	Bytes  []byte                `json:"bytes,omitempty"`
	Labels map[string]string     `json:"labels,omitempty"`
	Parts  []thingPart           `json:"parts,omitempty"`
	Any    any                   `json:"any,omitempty"`
	Raw    kruntime.RawExtension `json:"raw,omitempty"`
	Ptr    *string               `json:"ptr"`
	Flag   bool                  `json:"flag"`
}

type thingPart struct {
	Name    string             `json:"name"`
	Weights map[string]float64 `json:"weights"`
}

type thingStatus struct {
	Phase string `json:"phase"`
}

func (o *thing) DeepCopyObject() kruntime.Object { c := *o; return &c }

type thingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []thing `json:"items"`
}

func (l *thingList) DeepCopyObject() kruntime.Object { c := *l; return &c }

var thingGV = schema.GroupVersion{Group: "test.example.com", Version: "v1"}

// countingNS counts the decodes that reach its serializers.
type countingNS struct {
	kruntime.NegotiatedSerializer
	calls *int
}

type countingSerializer struct {
	kruntime.Serializer
	calls *int
}

func (c countingSerializer) Decode(data []byte, defaults *schema.GroupVersionKind, into kruntime.Object) (kruntime.Object, *schema.GroupVersionKind, error) {
	*c.calls++
	return c.Serializer.Decode(data, defaults, into)
}

func (c countingNS) SupportedMediaTypes() []kruntime.SerializerInfo {
	infos := append([]kruntime.SerializerInfo(nil), c.NegotiatedSerializer.SupportedMediaTypes()...)
	for i, info := range infos {
		infos[i].Serializer = countingSerializer{info.Serializer, c.calls}
		if s := info.StreamSerializer; s != nil {
			cp := *s
			cp.Serializer = countingSerializer{s.Serializer, c.calls}
			infos[i].StreamSerializer = &cp
		}
	}
	return infos
}

// jsonCodecs returns the client negotiators of newSource for a type, with
// and without fastDecoding, and a count of the decodes that the fast one
// left to the plain serializers under it.
func jsonCodecs(gv schema.GroupVersion, kind string, obj, list kruntime.Object) (fast, plain kruntime.ClientNegotiator, calls *int) {
	scheme := kruntime.NewScheme()
	scheme.AddKnownTypeWithName(gv.WithKind(kind), obj)
	scheme.AddKnownTypeWithName(gv.WithKind(kind+"List"), list)
	metav1.AddToGroupVersion(scheme, gv)
	base := serializer.NewCodecFactory(scheme).WithoutConversion()
	calls = new(int)
	elem := reflect.TypeOf(obj).Elem()
	fast = kruntime.NewClientNegotiator(NewDecoding(countingNS{base, calls}, gv.WithKind(kind), elem), gv)
	return fast, kruntime.NewClientNegotiator(base, gv), calls
}

func thingCodecs() (fast, plain kruntime.ClientNegotiator, calls *int) {
	return jsonCodecs(thingGV, "Thing", &thing{}, &thingList{})
}

// jsonDecoders returns the objects and the events decoders of n for JSON.
func jsonDecoders(t testing.TB, n kruntime.ClientNegotiator) (objects, events kruntime.Decoder) {
	objects, events, _, err := n.StreamDecoder(kruntime.ContentTypeJSON, nil)
	if err != nil {
		t.Fatal(err)
	}
	return objects, events
}

// watchJSON decodes a JSON watch response as the Syncer's stream does:
// WatchEvent frames with the events decoder, then each object with the
// objects decoder, until the end or an error.
func watchJSON(t testing.TB, n kruntime.ClientNegotiator, data []byte) ([]watch.Event, error) {
	objects, events, framer, err := n.StreamDecoder(kruntime.ContentTypeJSON, nil)
	if err != nil {
		t.Fatal(err)
	}
	frames := streaming.NewDecoder(framer.NewFrameReader(io.NopCloser(bytes.NewReader(data))), events)
	var evs []watch.Event
	for {
		var e metav1.WatchEvent
		res, _, err := frames.Decode(nil, &e)
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		if res != &e {
			return evs, fmt.Errorf("a frame decoded to %T", res)
		}
		obj, err := kruntime.Decode(objects, e.Object.Raw)
		if err != nil {
			return evs, err
		}
		evs = append(evs, watch.Event{Type: watch.EventType(e.Type), Object: obj})
	}
}

// thingStream is a watch response with every kind of event, written with
// members in another order, whitespace, escapes, unicode, unknown fields,
// nulls; every object but the Status is a Thing.
const thingStream = `{"type":"ADDED","object":{"apiVersion":"test.example.com/v1","kind":"Thing","metadata":{"name":"a","namespace":"ns","resourceVersion":"5","labels":{"x":"y"},"annotations":{"big":"` +
	"0123456789abcdef" + `"}},"spec":{"count":9007199254740993,"small":-7,"ratio":1.5e-3,"text":"tab\there \"quoted\" \u00e9\u263A \ud83d\ude00 ü 日本","bytes":"aGVsbG8=","labels":{"a":"1","":"empty"},"parts":[{"name":"p","weights":{"w":0.25,"z":-1E2}},{"name":"q","weights":null}],"any":{"n":1,"f":2.5,"big":123456789012345678,"l":[true,false,null,"s",{"deep":[[]]}]},"raw":{"free":"form","n":[1,2]},"ptr":"p","flag":true},"status":{"phase":"Ready"}}}
{ "object" : { "kind" : "Thing" , "spec" : { "text" : "\/\\\b\f\n\r" , "ptr" : null , "any" : 12 } , "apiVersion" : "test.example.com/v1" , "metadata" : { "name" : "b" } , "status" : null , "unknown" : {"x":[1,{"y":null}]} } , "type" : "MODIFIED" , "extra" : 1 }
	{"type":"BOOKMARK","object":{"kind":"Thing","apiVersion":"test.example.com/v1","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"count":0,"ratio":0,"text":"","ptr":null,"flag":false}}}

{"type":"DELETED","object":{"apiVersion":"test.example.com/v1","kind":"Thing","metadata":{"name":"a","namespace":"ns","deletionTimestamp":"2024-01-02T03:04:05Z"},"spec":{"any":[1,-0.5,"x"],"raw":null,"parts":[]}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}
`

// The fast pipeline decodes the stream as the plain one does, objects and
// all, and asks the plain serializers only for the Status.
func TestFastJSONWatchStreamMatchesPlain(t *testing.T) {
	fast, plain, calls := thingCodecs()
	want, err := watchJSON(t, plain, []byte(thingStream))
	if err != nil || len(want) != 5 {
		t.Fatalf("plain: %d events, %v", len(want), err)
	}
	got, err := watchJSON(t, fast, []byte(thingStream))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fast:\n%#v\nplain:\n%#v", got, want)
	}
	if *calls != 1 {
		t.Errorf("%d decodes left to the plain serializers, want 1 (the Status)", *calls)
	}
	// The equality above means something: the objects hold what was sent.
	a := got[0].Object.(*thing)
	if a.Spec.Count != 9007199254740993 || a.Spec.Text != "tab\there \"quoted\" é☺ 😀 ü 日本" ||
		a.Spec.Any.(map[string]any)["big"] != int64(123456789012345678) || a.Status.Phase != "Ready" {
		t.Errorf("first object: %+v", a)
	}
	if s, ok := got[4].Object.(*metav1.Status); !ok || s.Code != 410 {
		t.Errorf("ERROR event: %#v", got[4].Object)
	}
}

// A Widget of examples/crd, as the server writes it, through both
// pipelines.
func TestFastJSONDecodesWidgetLikeThePlainDecoder(t *testing.T) {
	fast, plain, calls := widgetCodecs()
	frame := widgetFrame(t, 2048)
	stream := append(append(frame, '\n'), frame...)
	want, err := watchJSON(t, plain, stream)
	if err != nil || len(want) != 2 {
		t.Fatalf("plain: %d events, %v", len(want), err)
	}
	got, err := watchJSON(t, fast, stream)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("fast (%v):\n%#v\nplain:\n%#v", err, got, want)
	}
	if *calls != 0 {
		t.Errorf("%d decodes left to the plain serializers", *calls)
	}
}

func widgetCodecs() (fast, plain kruntime.ClientNegotiator, calls *int) {
	return jsonCodecs(shopv1alpha1.SchemeGroupVersion, "Widget", &shopv1alpha1.Widget{}, &shopv1alpha1.WidgetList{})
}

// widgetFrame returns an ADDED event of a Widget with an annotation of
// size bytes, as the bench's.
func widgetFrame(t testing.TB, size int) []byte {
	w := &shopv1alpha1.Widget{
		TypeMeta: metav1.TypeMeta{APIVersion: shopv1alpha1.SchemeGroupVersion.String(), Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "widget-00042", UID: "0b9c5a52-8f3e-4c1e-9a61-3f7d2b1c0a11",
			ResourceVersion: "123456", Generation: 1, CreationTimestamp: metav1.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
			Annotations: map[string]string{"bench.syncer-gen.io/payload": strings.Repeat("x7Q", size/3)}},
		Spec: shopv1alpha1.WidgetSpec{Owner: "bench", Size: 1, Color: "red"},
	}
	raw, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	frame, err := json.Marshal(&metav1.WatchEvent{Type: "ADDED", Object: kruntime.RawExtension{Raw: raw}})
	if err != nil {
		t.Fatal(err)
	}
	return frame
}

// An object only the plain serializer can read as encoding/json does
// goes to it, and the answer is the same, error included.
func TestFastJSONLeavesOtherObjectsToThePlainDecoder(t *testing.T) {
	fast, plain, calls := thingCodecs()
	fastObjects, _ := jsonDecoders(t, fast)
	plainObjects, _ := jsonDecoders(t, plain)
	const gv = `"apiVersion":"test.example.com/v1"`
	for name, data := range map[string]string{
		"status":                   `{"kind":"Status","apiVersion":"v1","status":"Failure","code":410}`,
		"list":                     `{"kind":"ThingList",` + gv + `,"items":[{"metadata":{"name":"a"}}]}`,
		"unregistered kind":        `{"kind":"Other",` + gv + `}`,
		"other version":            `{"kind":"Thing","apiVersion":"test.example.com/v2"}`,
		"no apiVersion":            `{"kind":"Thing"}`,
		"no kind":                  `{` + gv + `}`,
		"kind in another case":     `{"kind":"Thing",` + gv + `,"Kind":"ThingList"}`,
		"apiVersion in upper case": `{"kind":"Thing",` + gv + `,"APIVERSION":"v1"}`,
		"kelvin sign K":            `{"kind":"Thing",` + gv + `,"\u212aind":"Status"}`,
		"kelvin sign K unescaped":  "{\"kind\":\"Thing\"," + gv + ",\"\u212aind\":\"Status\"}",
		"long s":                   "{\"kind\":\"Thing\"," + gv + ",\"apiVer\u017fion\":\"v1\"}",
		"kind twice":               `{"kind":"Thing",` + gv + `,"kind":"Status"}`,
		"kind twice, own last":     `{"kind":"Status",` + gv + `,"kind":"Thing"}`,
		"apiVersion twice":         `{"kind":"Thing",` + gv + `,` + gv + `}`,
		"escaped key":              `{"ki\u006ed":"Thing",` + gv + `}`,
		"escaped value":            `{"kind":"Thin\u0067",` + gv + `}`,
		"kind not a string":        `{"kind":7,` + gv + `}`,
		"kind null":                `{"kind":null,` + gv + `}`,
		"type mismatch":            `{"kind":"Thing",` + gv + `,"spec":{"count":"9"}}`,
		"malformed":                `{"kind":"Thing",` + gv + `,"spec":{"count":9}`,
		"trailing data":            `{"kind":"Thing",` + gv + `} {}`,
		"not an object":            `["kind","Thing"]`,
		"empty":                    ``,
		"null":                     `null`,
	} {
		before := *calls
		got, gotKind, gotErr := fastObjects.Decode([]byte(data), nil, nil)
		if *calls != before+1 {
			t.Errorf("%s: decoded without the plain serializer", name)
		}
		want, wantKind, wantErr := plainObjects.Decode([]byte(data), nil, nil)
		if !reflect.DeepEqual(got, want) || !sameKind(gotKind, wantKind) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s: fast %#v %v %v\nplain %#v %v %v", name, got, gotKind, gotErr, want, wantKind, wantErr)
		}
	}
	// A list decoded into a given object, as LIST responses are.
	list := `{"kind":"ThingList",` + gv + `,"metadata":{"resourceVersion":"3"},"items":[{"metadata":{"name":"a"}}]}`
	var got, want thingList
	before := *calls
	if _, _, err := fastObjects.Decode([]byte(list), nil, &got); err != nil || *calls != before+1 {
		t.Errorf("list: %v, %d calls", err, *calls-before)
	}
	if _, _, err := plainObjects.Decode([]byte(list), nil, &want); err != nil || !reflect.DeepEqual(got, want) || len(got.Items) != 1 {
		t.Errorf("list: fast %+v, plain %+v (%v)", got, want, err)
	}
}

// The objects decoder's fast path: same object, same kind returned, and
// nothing of the input kept.
func TestFastJSONDecodesOwnKindLikeThePlainDecoder(t *testing.T) {
	fast, plain, calls := thingCodecs()
	fastObjects, _ := jsonDecoders(t, fast)
	plainObjects, _ := jsonDecoders(t, plain)
	data := []byte(` {"spec":{"text":"t\u00e9","labels":{"x":"y"},"any":{"i":1,"f":1.5}},"metadata":{"name":"a"},"kind":"Thing","apiVersion":"test.example.com/v1"}` + "\n")
	want, wantKind, err := plainObjects.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, gotKind, err := fastObjects.Decode(data, nil, nil)
		if err != nil || !reflect.DeepEqual(got, want) || *gotKind != *wantKind || *gotKind != thingGV.WithKind("Thing") {
			t.Errorf("fast %#v %v %v\nplain %#v %v", got, gotKind, err, want, wantKind)
		}
	}
	if *calls != 0 {
		t.Errorf("%d decodes left to the plain serializers", *calls)
	}
	got, _, _ := fastObjects.Decode(data, nil, nil)
	for i := range data {
		data[i] = 'x'
	}
	if th := got.(*thing); th.Name != "a" || th.Spec.Text != "té" || th.Spec.Labels["x"] != "y" {
		t.Errorf("decoded object changed with its input: %+v", th)
	}
}

// A core object (apiVersion "v1", no group) takes the fast path too.
func TestFastJSONDecodesCoreKind(t *testing.T) {
	fast, plain, calls := jsonCodecs(schema.GroupVersion{Version: "v1"}, "Thing", &thing{}, &thingList{})
	fastObjects, _ := jsonDecoders(t, fast)
	plainObjects, _ := jsonDecoders(t, plain)
	data := []byte(`{"apiVersion":"v1","kind":"Thing","metadata":{"name":"a"}}`)
	got, _, err := fastObjects.Decode(data, nil, nil)
	want, _, _ := plainObjects.Decode(data, nil, nil)
	if err != nil || !reflect.DeepEqual(got, want) || *calls != 0 {
		t.Errorf("fast %#v (%v, %d calls), plain %#v", got, err, *calls, want)
	}
}

// The events decoder reads a frame as the plain one does, pointing into
// the frame where it takes the fast path, leaving the rest to it.
func TestFastJSONWatchEventDecodeMatchesPlain(t *testing.T) {
	fast, plain, calls := thingCodecs()
	_, fastEvents := jsonDecoders(t, fast)
	_, plainEvents := jsonDecoders(t, plain)
	for _, c := range []struct {
		frame string
		fast  bool
	}{
		{`{"type":"ADDED","object":{"kind":"Thing"}}`, true},
		{` { "object" : [1, {"a":"\"}"}] ,` + "\n\t\r" + `"type" : "MODIFIED" } `, true},
		{`{"type":"DELETED","object":"text","other":{"kind":"x"}}`, true},
		{`{"type":"BOOKMARK","object":null}`, true},
		{`{"type":"ERROR"}`, true},
		{`{"object":{}}`, true},
		{`{"type":"ADDÉD","object":1}`, true},
		{`{}`, true},
		{`{"type":"ADDED","object":{},"type":"DELETED"}`, false},
		{`{"type":"ADDED","object":{},"object":[]}`, false},
		{`{"Type":"ADDED","object":{}}`, false},
		{`{"type":"ADDED","OBJECT":{}}`, false},
		{`{"ty\u0070e":"ADDED","object":{}}`, false},
		{`{"type":"\u0041DDED","object":{}}`, false},
		{"{\"type\":\"A\xffDDED\",\"object\":{}}", false},
		{`{"type":5,"object":{}}`, false},
		{`{"type":null,"object":{}}`, false},
		{`{"type":"ADDED","object":{},"kind":"Status","apiVersion":"v1"}`, false},
		{`{"type":"ADDED","object":{},"kind":"WatchEvent"}`, false},
		{`{"type":"ADDED","object":{},"apiVersion":"test.example.com/v1"}`, false},
		{`{"type":"ADDED","object":{}`, false},
		{`{"type":"ADDED","object":{}}}`, false},
		{`{"type":"ADDED","object":{"a":01}}`, false},
		{`["ADDED"]`, false},
		{`null`, false},
	} {
		for _, prior := range []metav1.WatchEvent{{}, {Type: "OLD", Object: kruntime.RawExtension{Raw: []byte(`{"old":1}`)}}} {
			before := *calls
			frame := []byte(c.frame)
			got, want := prior, prior
			got.Object.Raw = bytes.Clone(prior.Object.Raw)
			gotObj, gotKind, gotErr := fastEvents.Decode(frame, nil, &got)
			wantObj, wantKind, wantErr := plainEvents.Decode(frame, nil, &want)
			if fast := *calls == before; fast != c.fast {
				t.Errorf("%s: fast path %v, want %v", c.frame, fast, c.fast)
			}
			if got.Type != want.Type || !bytes.Equal(got.Object.Raw, want.Object.Raw) || (gotObj == &got) != (wantObj == &want) ||
				!sameKind(gotKind, wantKind) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s: fast %q %s %v %v, plain %q %s %v %v", c.frame, got.Type, got.Object.Raw, gotKind, gotErr,
					want.Type, want.Object.Raw, wantKind, wantErr)
			}
			if c.fast && prior.Type == "" && len(got.Object.Raw) > 0 && !within(got.Object.Raw, frame) {
				t.Errorf("%s: the object was copied", c.frame)
			}
		}
	}
}

// within tells whether b is a sub-slice of s.
func within(b, s []byte) bool {
	p, start := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	return p >= start && p+uintptr(len(b)) <= start+uintptr(len(s))
}

func sameKind(a, b *schema.GroupVersionKind) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// eachMember finds what encoding/json finds, and reads as well-formed
// exactly the objects encoding/json reads.
func TestEachMemberMatchesEncodingJSON(t *testing.T) {
	for _, s := range jsonScannerCases {
		checkEachMember(t, []byte(s))
	}
	deep := strings.Repeat("[", maxJSONDepth-1) + strings.Repeat("]", maxJSONDepth-1)
	for _, s := range []string{`{"a":` + deep + `}`, `{"a":[` + deep + `]}`} {
		checkEachMember(t, []byte(s))
	}
}

var jsonScannerCases = []string{
	`{}`, ` {} `, "\t{\n}\r\n", `{"a":1}`, `{"a":1,}`, `{,"a":1}`, `{"a":1 "b":2}`, `{"a" 1}`, `{"a":}`, `{a:1}`,
	`{"a":-0}`, `{"a":-}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":1e+}`, `{"a":1E-07}`, `{"a":-12.5e3}`,
	`{"a":+1}`, `{"a":0x1}`, `{"a":Infinity}`, `{"a":NaN}`,
	`{"a":true,"b":false,"c":null}`, `{"a":tru}`, `{"a":nul}`, `{"a":truex}`, `{"a":True}`,
	`{"a":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, `{"a":"\'"}`,
	"{\"a\":\"\x01\"}", "{\"a\":\"\x1f\"}", "{\"a\":\"\x7f\xff\xfe\"}", "{\"\xff\":1}", `{"a":"unterminated}`, `{"a":"x\"}`,
	`{"a":[]}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`, `{"a":[1,[2,[3,{"b":[]}]]]}`, `{"a":[}`, `{"a":{]}`,
	`{"a":{"b":{"c":{}}}}`, `{"a":{"b":1,}}`, `{"a":1}}`, `{"a":1}x`, `{"a":1}{}`, `{"a":1`, `{`, `}`, ``, ` `,
	`[]`, `"s"`, `1`, `null`, `{"a":1,"a":2}`, `{"\u0061":1}`, `{"":""}`,
}

// checkEachMember checks eachMember on data against encoding/json.
func checkEachMember(t *testing.T, data []byte) {
	t.Helper()
	type member struct {
		key   string
		value string
		esc   bool
	}
	var got []member
	ok := eachMember(data, func(key, value []byte, esc bool) bool {
		got = append(got, member{string(key), string(value), esc})
		return true
	})
	isObject := json.Valid(data) && bytes.TrimLeft(data, " \t\r\n")[0] == '{'
	if ok != isObject {
		t.Fatalf("eachMember(%q) = %v, encoding/json reads it as an object: %v", data, ok, isObject)
	}
	if !ok {
		return
	}
	var want []member
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token() // {
	for dec.More() {
		tok, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		want = append(want, member{key: tok.(string), value: string(v)})
	}
	if len(got) != len(want) {
		t.Fatalf("eachMember(%q) = %+v, encoding/json %+v", data, got, want)
	}
	for i, m := range got {
		// The key as encoding/json unquotes it (invalid UTF-8 made U+FFFD).
		var key string
		if err := json.Unmarshal([]byte(`"`+m.key+`"`), &key); err != nil {
			t.Fatal(err)
		}
		if key != want[i].key || m.value != want[i].value || m.esc != strings.Contains(m.key, `\`) {
			t.Errorf("eachMember(%q) member %d = %+v, encoding/json %+v", data, i, m, want[i])
		}
	}
}

// FuzzJSONDecoders checks, for any input, that the scanner reads objects
// as encoding/json does, and that the fast decoders (events, objects and
// the whole watch pipeline) answer as the plain ones, errors included,
// whether they take the fast path or not, and do not panic.
func FuzzJSONDecoders(f *testing.F) {
	for _, s := range jsonScannerCases {
		f.Add([]byte(s))
	}
	for _, frame := range strings.Split(thingStream, "\n") {
		f.Add([]byte(frame))
		// The object alone, as the objects decoder gets it.
		var ev metav1.WatchEvent
		if json.Unmarshal([]byte(frame), &ev) == nil {
			f.Add(ev.Object.Raw)
		}
	}
	f.Add([]byte(thingStream))
	f.Add([]byte(`{"type":"ADDED","object":{"kind":"Thing","apiVersion":"test.example.com/v1","Kind":"Status"}}`))
	f.Add([]byte(`{"type":"ADDED","object":{"kind":"Thing","apiVersion":"test.example.com/v1","spec":{"count":"x"}}}`))
	f.Add([]byte("{\"kind\":\"Thing\",\"apiVersion\":\"test.example.com/v1\",\"\u212aind\":\"Status\"}"))
	fast, plain, _ := thingCodecs()
	fastObjects, fastEvents := jsonDecoders(f, fast)
	plainObjects, plainEvents := jsonDecoders(f, plain)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkEachMember(t, data)

		gotObj, gotKind, gotErr := fastObjects.Decode(data, nil, nil)
		wantObj, wantKind, wantErr := plainObjects.Decode(data, nil, nil)
		if !reflect.DeepEqual(gotObj, wantObj) || !sameKind(gotKind, wantKind) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("object %q: fast %#v %v %v, plain %#v %v %v", data, gotObj, gotKind, gotErr, wantObj, wantKind, wantErr)
		}

		for _, prior := range []metav1.WatchEvent{{}, {Type: "OLD", Object: kruntime.RawExtension{Raw: []byte(`{}`)}}} {
			got, want := prior, prior
			got.Object.Raw = bytes.Clone(prior.Object.Raw)
			gotRes, gotKind, gotErr := fastEvents.Decode(data, nil, &got)
			wantRes, wantKind, wantErr := plainEvents.Decode(data, nil, &want)
			same := reflect.DeepEqual(gotRes, wantRes) && (gotRes == &got) == (wantRes == &want)
			if !same || !reflect.DeepEqual(got, want) || !sameKind(gotKind, wantKind) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("event %q: fast %#v %#v %v %v, plain %#v %#v %v %v", data, got, gotRes, gotKind, gotErr, want, wantRes, wantKind, wantErr)
			}
		}

		gotEvs, gotErr := watchJSON(t, fast, data)
		wantEvs, wantErr := watchJSON(t, plain, data)
		if !reflect.DeepEqual(gotEvs, wantEvs) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("stream %q: fast %#v %v, plain %#v %v", data, gotEvs, gotErr, wantEvs, wantErr)
		}
	})
}

// Per event, the fast path allocates about what unmarshalling the object
// alone does; the plain one a copy of the object more, and encoding/json's
// reading of apiVersion and kind.
func TestFastJSONAllocatesLessPerEvent(t *testing.T) {
	frame := widgetFrame(t, 2048)
	var ev metav1.WatchEvent
	if err := json.Unmarshal(frame, &ev); err != nil {
		t.Fatal(err)
	}
	raw := ev.Object.Raw
	perOp := func(f func(b *testing.B)) int64 {
		r := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f(b)
			}
		})
		return r.AllocedBytesPerOp()
	}
	perEvent := func(n kruntime.ClientNegotiator) int64 {
		objects, events := jsonDecoders(t, n)
		return perOp(func(b *testing.B) {
			ev = metav1.WatchEvent{}
			if _, _, err := events.Decode(frame, nil, &ev); err != nil {
				b.Fatal(err)
			}
			if _, err := kruntime.Decode(objects, ev.Object.Raw); err != nil {
				b.Fatal(err)
			}
		})
	}
	object := perOp(func(b *testing.B) {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &shopv1alpha1.Widget{}); err != nil {
			b.Fatal(err)
		}
	})
	fastNeg, plainNeg, _ := widgetCodecs()
	fast, plain := perEvent(fastNeg), perEvent(plainNeg)
	t.Logf("frame %d B, object %d B; per event: fast %d B, plain %d B; unmarshalling the object alone %d B",
		len(frame), len(raw), fast, plain, object)
	if fast > object+object/20 {
		t.Errorf("fast path: %d B per event, more than unmarshalling the object alone (%d B)", fast, object)
	}
	if plain-fast < int64(len(raw)) {
		t.Errorf("fast path: %d B per event, plain %d B: not an object's copy (%d B) less", fast, plain, len(raw))
	}
}

// selfDecoding is a type with its own UnmarshalJSON, as a projected type
// has: it decodes the name only, and counts its calls.
type selfDecoding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

var selfDecodingCalls int

func (o *selfDecoding) UnmarshalJSON(b []byte) error {
	selfDecodingCalls++
	var v struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	o.APIVersion, o.Kind, o.Name = v.APIVersion, v.Kind, v.Metadata.Name
	return nil
}

func (o *selfDecoding) DeepCopyObject() kruntime.Object { c := *o; return &c }

type selfDecodingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []selfDecoding `json:"items"`
}

func (l *selfDecodingList) DeepCopyObject() kruntime.Object { c := *l; return &c }

// An object of a type with its own UnmarshalJSON is decoded by it, once,
// straight (sigs.k8s.io/json would first check the syntax of the whole
// object); what it refuses goes to the plain serializer, for its error.
func TestJSONObjectOfATypeThatDecodesItself(t *testing.T) {
	fast, _, calls := jsonCodecs(thingGV, "Thing", &selfDecoding{}, &selfDecodingList{})
	objects, _ := jsonDecoders(t, fast)
	selfDecodingCalls = 0
	obj, err := kruntime.Decode(objects, []byte(`{"apiVersion":"test.example.com/v1","kind":"Thing","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"n":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if o := obj.(*selfDecoding); o.Name != "a" || o.Labels != nil {
		t.Errorf("decoded %+v, want the name only", o)
	}
	if selfDecodingCalls != 1 || *calls != 0 {
		t.Errorf("UnmarshalJSON called %d times, the plain serializer %d; want once and never", selfDecodingCalls, *calls)
	}
	selfDecodingCalls = 0
	if _, err := kruntime.Decode(objects, []byte(`{"apiVersion":"test.example.com/v1","kind":"Thing","metadata":{"name":5}}`)); err == nil {
		t.Error("no error for a name that is a number")
	}
	if *calls != 1 {
		t.Errorf("the plain serializer was asked %d times for its error, want once", *calls)
	}
}

package projection

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"

	"github.com/syncer-gen/syncer-gen/projection/projectiontest"
)

// jsonT has a field of every kind a generated JSON decoder reads.
type jsonT struct {
	metav1.TypeMeta `json:",inline"`
	Name            string            `json:"name"`
	Phase           corev1.PodPhase   `json:"phase,omitempty"`
	Ok              bool              `json:"ok"`
	N32             int32             `json:"n32"`
	N64             int64             `json:"n64"`
	U8              uint8             `json:"u8"`
	F32             float32           `json:"f32"`
	F64             float64           `json:"f64"`
	P64             *int64            `json:"p64,omitempty"`
	PS              *string           `json:"ps"`
	Tags            []string          `json:"tags"`
	Labels          map[string]string `json:"labels"`
	Counts          map[string]int    `json:"counts"`
	Inner           jsonInner         `json:"inner"`
	Items           []jsonInner       `json:"items"`
	Ptrs            []*jsonInner      `json:"ptrs"`
	Ref             *jsonInner        `json:"ref"`
	When            metav1.Time       `json:"when"`
	WhenP           *metav1.Time      `json:"whenP"`
	Raw             []byte            `json:"raw"`
	Any             any               `json:"any"`
	Quoted          int64             `json:"quoted,string"`
}

type jsonInner struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// decodeJSONT is written as syncer-gen generates JSON decoders, keeping
// every field: with the fallback, it must agree with sigs.k8s.io/json on
// any input.
func decodeJSONT(d *JSONReader, m *jsonT) {
	for d.Member() {
		switch string(d.Key()) {
		case "apiVersion":
			m.APIVersion = d.String()
		case "kind":
			m.Kind = d.String()
		case "name":
			m.Name = d.String()
		case "phase":
			m.Phase = corev1.PodPhase(d.String())
		case "ok":
			m.Ok = d.Bool()
		case "n32":
			m.N32 = int32(d.Int(32))
		case "n64":
			m.N64 = d.Int(64)
		case "u8":
			m.U8 = uint8(d.Uint(8))
		case "f32":
			m.F32 = float32(d.Float(32))
		case "f64":
			m.F64 = d.Float(64)
		case "p64":
			if d.Null() {
				m.P64 = nil
			} else {
				v := d.Int(64)
				m.P64 = &v
			}
		case "ps":
			if d.Null() {
				m.PS = nil
			} else {
				v := d.String()
				m.PS = &v
			}
		case "tags":
			if d.Null() {
				m.Tags = nil
			} else if d.Array() {
				m.Tags = []string{}
				for d.Element() {
					m.Tags = append(m.Tags, d.String())
				}
			}
		case "labels":
			StringMap(d, &m.Labels)
		case "counts":
			d.Value(&m.Counts)
		case "inner":
			if d.Object() {
				decodeJSONInner(d, &m.Inner)
			}
		case "items":
			if d.Null() {
				m.Items = nil
			} else if d.Array() {
				m.Items = []jsonInner{}
				for d.Element() {
					m.Items = append(m.Items, jsonInner{})
					if d.Object() {
						decodeJSONInner(d, &m.Items[len(m.Items)-1])
					}
				}
			}
		case "ptrs":
			if d.Null() {
				m.Ptrs = nil
			} else if d.Array() {
				m.Ptrs = []*jsonInner{}
				for d.Element() {
					var e *jsonInner
					if !d.Null() {
						e = new(jsonInner)
						if d.Object() {
							decodeJSONInner(d, e)
						}
					}
					m.Ptrs = append(m.Ptrs, e)
				}
			}
		case "ref":
			if d.Null() {
				m.Ref = nil
			} else {
				m.Ref = new(jsonInner)
				if d.Object() {
					decodeJSONInner(d, m.Ref)
				}
			}
		case "when":
			d.Value(&m.When)
		case "whenP":
			d.Value(&m.WhenP)
		case "raw":
			d.Value(&m.Raw)
		case "any":
			d.Value(&m.Any)
		case "quoted":
			d.Fail(`a ",string" field`)
		default:
			d.Skip()
		}
	}
}

func decodeJSONInner(d *JSONReader, m *jsonInner) {
	for d.Member() {
		switch string(d.Key()) {
		case "name":
			m.Name = d.String()
		case "port":
			m.Port = int32(d.Int(32))
		default:
			d.Skip()
		}
	}
}

// unmarshalJSONT is what a generated UnmarshalJSON does.
func unmarshalJSONT(b []byte) (*jsonT, error) {
	m := new(jsonT)
	d := NewJSONReader(b)
	if d.Object() {
		decodeJSONT(d, m)
	}
	if d.Close() == nil {
		return m, nil
	}
	return FullJSON(b, func(full *jsonT) *jsonT { return full })
}

// checkJSONT decodes b with decodeJSONT and with sigs.k8s.io/json: the
// same value, or the same error.
func checkJSONT(t *testing.T, b []byte) {
	t.Helper()
	want := new(jsonT)
	werr := kjson.UnmarshalCaseSensitivePreserveInts(b, want)
	got, gerr := unmarshalJSONT(b)
	switch {
	case (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error():
		t.Fatalf("%s: error %v, want %v", b, gerr, werr)
	case werr == nil && !reflect.DeepEqual(got, want):
		t.Fatalf("%s:\n got %+v\nwant %+v", b, got, want)
	}
}

func jsonSeeds(t testing.TB) [][]byte {
	t.Helper()
	f := projectiontest.Filler(1)
	rnd := rand.New(rand.NewSource(1))
	out := [][]byte{
		[]byte(`{"name":"a","name":"b"}`),                    // duplicate: the last, by the full decoder
		[]byte(`{"n\u0061me":"escaped key","Name":"other"}`), // an escaped key matches; another case does not
		[]byte(`{"n32":2147483648}`),                         // out of range
		[]byte(`{"n32":1.0}`),                                // not an integer
		[]byte(`{"n64":-9223372036854775808,"u8":255,"f32":3.5e38}`),
		[]byte(`{"u8":-0}`),
		[]byte(`{"name":"\ud800"}`),   // a lone surrogate: U+FFFD for the full decoder
		[]byte("{\"name\":\"\xff\"}"), // invalid UTF-8
		[]byte(`{"name":null,"tags":null,"labels":null,"inner":null,"ref":null,"items":[null],"ptrs":[null]}`),
		[]byte(`{"tags":[],"labels":{},"items":[],"labels":{"a":null}}`),
		[]byte(`{"name":5}`),
		[]byte(`{"inner":[]}`),
		[]byte(`{"quoted":"12"}`),
		[]byte(`{"when":"2026-01-02T03:04:05Z","whenP":null,"raw":"aGk=","any":{"n":1}}`),
		[]byte(`{} {}`),
		[]byte(`null`),
		[]byte(` {"name" : "a" } `),
		[]byte(`{"name":"a"`),
	}
	for range 30 {
		var v jsonT
		f.Fill(&v)
		b, err := json.Marshal(&v)
		if err != nil {
			continue
		}
		out = append(out, b)
		out = append(out, projectiontest.JSONVariants(b, rnd)...)
	}
	return out
}

func TestJSONReaderAgreesWithSigsJSON(t *testing.T) {
	for _, b := range jsonSeeds(t) {
		checkJSONT(t, b)
	}
}

// The reader falls back, rather than guess, on what sigs.k8s.io/json
// reads its own way.
func TestJSONReaderRefuses(t *testing.T) {
	for _, in := range []string{
		`{"name":"a","name":"b"}`, `{"name":"\ud800"}`, "{\"name\":\"\xff\"}", `{"n32":2147483648}`,
		`{"n32":1.0}`, `{"name":5}`, `{"inner":[]}`, `{"quoted":"12"}`, `{} {}`, `{"name":"a"`, `[1]`,
	} {
		d := NewJSONReader([]byte(in))
		if d.Object() {
			decodeJSONT(d, new(jsonT))
		}
		if err := d.Close(); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

// Reading a JSON object allocates only what it keeps: here, nothing.
func TestJSONReaderAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector empties sync.Pools at random")
	}
	b := []byte(`{"n32":12,"ok":true,"skipped":{"a":[1,2,{"b":"c"}]},"inner":{"port":80}}`)
	var m jsonT
	allocs := testing.AllocsPerRun(100, func() {
		d := NewJSONReader(b)
		if d.Object() {
			decodeJSONT(d, &m)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("%v allocations, want 0", allocs)
	}
}

func FuzzJSONReader(f *testing.F) {
	for _, b := range jsonSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkJSONT(t, b) })
}

func ExampleJSONReader() {
	m, err := unmarshalJSONT([]byte(`{"name":"web","tags":["a","b"],"unknown":{"x":1}}`))
	fmt.Println(m.Name, m.Tags, err)
	// Output: web [a b] <nil>
}

package projectiontest

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	kjson "sigs.k8s.io/json"
)

// objects is how many random objects (and lists) a check decodes.
const objects = 200

// FullProtobuf is what the built-in API types have: their generated
// protobuf methods.
type FullProtobuf[U any] interface {
	*U
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// ProjectedProtobuf is a projected type with a protobuf decoder.
type ProjectedProtobuf[P any] interface {
	*P
	Unmarshal([]byte) error
}

// ProjectedJSON is a projected type's JSON decoder.
type ProjectedJSON[P any] interface {
	*P
	UnmarshalJSON([]byte) error
}

// Protobuf checks the protobuf decoder of the projected type P against the
// upstream type U's own Unmarshal followed by from, on random objects of U
// and variants of their encodings (ProtobufVariants); then its list's
// decoder against fullList's (pointers to the list types, e.g.
// new(corev1.PodList) and new(NodePodList)), item by item.
func Protobuf[U, P any, PU FullProtobuf[U], PP ProjectedProtobuf[P]](t *testing.T, from func(PU) PP, fullList, list any) {
	t.Helper()
	eachObject(t, 1, func(full PU) ([]byte, error) { return full.Marshal() }, ProtobufVariants,
		func(t *testing.T, b []byte) bool { return checkProtobuf(t, from, b) })
	eachList(t, 1, fullList, func(l any) ([]byte, error) { return l.(interface{ Marshal() ([]byte, error) }).Marshal() },
		func(t *testing.T, b []byte) {
			checkList(t, b, from, fullList, list, func(b []byte, v any) error {
				return v.(interface{ Unmarshal([]byte) error }).Unmarshal(b)
			})
		})
}

// checkProtobuf checks one message; it returns whether the full decoder took it.
func checkProtobuf[U, P any, PU FullProtobuf[U], PP ProjectedProtobuf[P]](t *testing.T, from func(PU) PP, b []byte) bool {
	t.Helper()
	want := PU(new(U))
	werr := want.Unmarshal(b)
	got := PP(new(P))
	gerr := got.Unmarshal(b)
	return Agree(t, b, werr, gerr, func() (any, any) { return from(want), got })
}

// JSON checks the JSON decoder (UnmarshalJSON) of the projected type P
// against sigs.k8s.io/json into the upstream type U followed by from, as
// Protobuf does, on json.Marshal of random objects and JSONVariants of
// them; then the list types, decoded with sigs.k8s.io/json as
// apimachinery's JSON serializer does (which calls the projected list's
// UnmarshalJSON), on random lists and ListVariants of them.
func JSON[U, P any, PU interface{ *U }, PP ProjectedJSON[P]](t *testing.T, from func(PU) PP, fullList, list any) {
	t.Helper()
	eachObject(t, 2, func(full PU) ([]byte, error) { return json.Marshal(full) }, JSONVariants,
		func(t *testing.T, b []byte) bool { return checkJSON(t, from, b) })
	rnd := rand.New(rand.NewSource(2))
	eachList(t, 2, fullList, func(l any) ([]byte, error) { return json.Marshal(l) }, func(t *testing.T, b []byte) {
		checkList(t, b, from, fullList, list, kjson.UnmarshalCaseSensitivePreserveInts)
		for _, v := range ListVariants(b, rnd) {
			checkList(t, v, from, fullList, list, kjson.UnmarshalCaseSensitivePreserveInts)
		}
	})
}

func checkJSON[U, P any, PU interface{ *U }, PP ProjectedJSON[P]](t *testing.T, from func(PU) PP, b []byte) bool {
	t.Helper()
	want := PU(new(U))
	werr := kjson.UnmarshalCaseSensitivePreserveInts(b, want)
	got := PP(new(P))
	gerr := got.UnmarshalJSON(b)
	return Agree(t, b, werr, gerr, func() (any, any) { return from(want), got })
}

// eachObject checks the encodings of random objects of U (filled from
// seed), and variants of them: the full decoder must take each object's
// encoding. An object the encoding cannot carry (in JSON, a RawExtension of
// random bytes) is passed over.
func eachObject[U any, PU interface{ *U }](t *testing.T, seed int64, encode func(PU) ([]byte, error),
	variants func([]byte, *rand.Rand) [][]byte, check func(*testing.T, []byte) bool) {
	t.Helper()
	f, rnd := Filler(seed), rand.New(rand.NewSource(seed))
	for range objects {
		full := PU(new(U))
		f.Fill(full)
		b, err := encode(full)
		if err != nil {
			continue
		}
		if !check(t, b) {
			t.Fatalf("the full decoder refused what its own encoder wrote: %.400q", b)
		}
		for _, v := range variants(b, rnd) {
			check(t, v)
		}
		if t.Failed() {
			return
		}
	}
}

// eachList checks the encodings of random lists of fullList's type.
func eachList(t *testing.T, seed int64, fullList any, encode func(any) ([]byte, error), check func(*testing.T, []byte)) {
	t.Helper()
	f := Filler(seed)
	for range objects / 10 {
		fl := reflect.New(reflect.TypeOf(fullList).Elem()).Interface()
		f.Fill(fl)
		if b, err := encode(fl); err == nil {
			check(t, b)
		}
	}
}

// checkList decodes the list b into fullList's type and list's with decode:
// the projected items must be the full ones projected, the list's
// TypeMeta and ListMeta the same.
func checkList[U, P any, PU interface{ *U }, PP interface{ *P }](t *testing.T, b []byte, from func(PU) PP, fullList, list any, decode func([]byte, any) error) {
	t.Helper()
	want := reflect.New(reflect.TypeOf(fullList).Elem())
	werr := decode(b, want.Interface())
	got := reflect.New(reflect.TypeOf(list).Elem())
	gerr := decode(b, got.Interface())
	Agree(t, b, werr, gerr, func() (any, any) {
		wi, gi := want.Elem().FieldByName("Items"), got.Elem().FieldByName("Items")
		projected := reflect.Zero(gi.Type())
		if !wi.IsNil() {
			projected = reflect.MakeSlice(gi.Type(), wi.Len(), wi.Len())
			for i := range wi.Len() {
				projected.Index(i).Set(reflect.ValueOf(from(PU(wi.Index(i).Addr().Interface().(*U)))).Elem())
			}
		}
		return []any{want.Elem().FieldByName("TypeMeta").Interface(), want.Elem().FieldByName("ListMeta").Interface(), projected.Interface()},
			[]any{got.Elem().FieldByName("TypeMeta").Interface(), got.Elem().FieldByName("ListMeta").Interface(), gi.Interface()}
	})
}

// Agree checks that a projected decoder (gerr, and the value values
// returns second) agrees with the full decoder projected (werr, and the
// value first) on input b: when the full decoder takes b, the projected
// one must too, with the same value; when it refuses b, the projected one
// must refuse it with the same error (it handed b to the full decoder) or
// take it: a projected decoder does not read what it does not keep, so a
// value the full decoder would refuse there (a wrong wire type or JSON
// type, a Quantity that does not parse) goes unnoticed. It returns
// whether the full decoder took b.
func Agree(t testing.TB, b []byte, werr, gerr error, values func() (want, got any)) bool {
	t.Helper()
	switch {
	case werr == nil && gerr != nil:
		t.Errorf("the projected decoder refused what the full one took: %v\ninput: %.400q", gerr, b)
	case werr != nil && gerr != nil && werr.Error() != gerr.Error():
		t.Errorf("the projected decoder's error is not the full one's:\n got %v\nwant %v\ninput: %.400q", gerr, werr, b)
	case werr == nil:
		want, got := values()
		if path := diff(reflect.ValueOf(want), reflect.ValueOf(got), "$"); path != "" {
			t.Errorf("projected decode differs from the full decode projected, at %s\ninput: %.400q", path, b)
		}
	}
	return werr == nil
}

// diff returns the path of the first difference between a and b, which
// hold the same types (a pointer to the projected type each), "" if none.
func diff(a, b reflect.Value, path string) string {
	if !a.IsValid() || !b.IsValid() {
		if a.IsValid() != b.IsValid() {
			return path
		}
		return ""
	}
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s (%s, not %s)", path, b.Type(), a.Type())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s (nil: %v, want %v)", path, b.IsNil(), a.IsNil())
			}
			return ""
		}
		return diff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				continue // compared with the struct, below
			}
			if p := diff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
		if !reflect.DeepEqual(a.Interface(), b.Interface()) { // unexported fields
			return path
		}
		return ""
	case reflect.Slice, reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s (nil %v, len %d; want nil %v, len %d)", path, b.IsNil(), b.Len(), a.IsNil(), a.Len())
		}
		if a.Kind() == reflect.Slice {
			for i := range a.Len() {
				if p := diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
					return p
				}
			}
			return ""
		}
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Sprintf("%s (%v, want %v)", path, b.Interface(), a.Interface())
	}
	return ""
}

// FuzzProtobuf fuzzes the protobuf decoder of P against U's, as Protobuf
// checks it, from random objects and their variants.
func FuzzProtobuf[U, P any, PU FullProtobuf[U], PP ProjectedProtobuf[P]](f *testing.F, from func(PU) PP) {
	fill, rnd := Filler(3), rand.New(rand.NewSource(3))
	for range 10 {
		full := PU(new(U))
		fill.Fill(full)
		if b, err := full.Marshal(); err == nil {
			f.Add(b)
			for _, v := range ProtobufVariants(b, rnd) {
				f.Add(v)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkProtobuf(t, from, b) })
}

// FuzzJSON fuzzes the JSON decoder of P against sigs.k8s.io/json into U,
// as JSON checks it.
func FuzzJSON[U, P any, PU interface{ *U }, PP ProjectedJSON[P]](f *testing.F, from func(PU) PP) {
	fill, rnd := Filler(4), rand.New(rand.NewSource(4))
	for range 10 {
		full := PU(new(U))
		fill.Fill(full)
		if b, err := json.Marshal(full); err == nil {
			f.Add(b)
			for _, v := range JSONVariants(b, rnd) {
				f.Add(v)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkJSON(t, from, b) })
}

// FuzzJSONList fuzzes the JSON decoder of P's list (fullList and list are
// pointers to the list types, as for JSON) against sigs.k8s.io/json into
// U's, as JSON checks it, from random lists and their ListVariants.
func FuzzJSONList[U, P any, PU interface{ *U }, PP interface{ *P }](f *testing.F, from func(PU) PP, fullList, list any) {
	fill, rnd := Filler(5), rand.New(rand.NewSource(5))
	for range 3 {
		fl := reflect.New(reflect.TypeOf(fullList).Elem()).Interface()
		fill.Fill(fl)
		if b, err := json.Marshal(fl); err == nil {
			f.Add(b)
			for _, v := range ListVariants(b, rnd) {
				f.Add(v)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkList(t, b, from, fullList, list, kjson.UnmarshalCaseSensitivePreserveInts)
	})
}

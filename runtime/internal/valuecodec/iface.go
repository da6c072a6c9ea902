package valuecodec

import (
	"reflect"
)

// An interface holds what JSON decodes into one: nil, bool, int64 (as
// sigs.k8s.io/json keeps integers), float64, string, []any and
// map[string]any, nested. Each is written as a tag, then the value.
const (
	tagNil byte = iota
	tagBool
	tagInt64
	tagFloat64
	tagString
	tagSlice
	tagMap
)

var (
	anyType    = reflect.TypeFor[any]()
	jsonTypes  = map[reflect.Type]byte{reflect.TypeFor[bool](): tagBool, reflect.TypeFor[int64](): tagInt64, reflect.TypeFor[float64](): tagFloat64, reflect.TypeFor[string](): tagString, reflect.TypeFor[[]any](): tagSlice, reflect.TypeFor[map[string]any](): tagMap}
	typesByTag = [...]reflect.Type{tagBool: reflect.TypeFor[bool](), tagInt64: reflect.TypeFor[int64](), tagFloat64: reflect.TypeFor[float64](), tagString: reflect.TypeFor[string](), tagSlice: reflect.TypeFor[[]any](), tagMap: reflect.TypeFor[map[string]any]()}
)

// iface writes an interface value v that is not nil.
func (e *encoder) iface(v reflect.Value, depth int) error {
	if v.Type().NumMethod() != 0 { // only any holds data; others (runtime.Object) hold behaviour
		return e.fail(v, ErrNotData)
	}
	x := v.Elem()
	tag, ok := jsonTypes[x.Type()]
	if !ok {
		return e.fail(v, ErrNotData)
	}
	e.buf = append(e.buf, tag)
	return e.value(x, depth+1)
}

// iface reads an interface value into v.
func (d *decoder) iface(v reflect.Value, depth int) error {
	tag, err := d.byte()
	if err != nil {
		return err
	}
	if tag == tagNil {
		return nil
	}
	if v.Type() != anyType || int(tag) >= len(typesByTag) {
		return malformed("interface tag %d", tag)
	}
	x := reflect.New(typesByTag[tag]).Elem()
	if err := d.value(x, depth+1); err != nil {
		return err
	}
	v.Set(x)
	return nil
}

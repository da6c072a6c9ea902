package valuecodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
	"unsafe"
)

var timeType = reflect.TypeFor[time.Time]()

// maxDepth bounds nesting, in writing and reading alike, in steps: a
// struct's field, a slice's or array's element, a map's key or value, a
// pointer's target and an interface's value are each one step deeper.
// kube-apiserver and encoding/json accept JSON nested 10,000 levels deep;
// such a value takes 2 steps a level in a map[string]any (the map's value,
// the interface's), and at most 4 in a typed value (a union type such as
// apiextensions' JSONSchemaPropsOrArray: a field, its pointer, the union's
// field, its pointer). So anything a server serves is within the bound,
// and what is deeper is refused (ErrTooDeep), not a stack overflow.
const maxDepth = 1 << 16

// cycleDepth is the depth past which the encoder looks for cycles: a
// pointer, map or slice met again inside itself. Below it (every object
// a server serves but the deepest) it costs nothing; a cycle, which
// repeats without end, always passes it.
const cycleDepth = 1000

// Append appends the encoding of *v to dst. v must be a non-nil pointer.
func Append(dst []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return dst, fmt.Errorf("valuecodec: Append needs a non-nil pointer, not %T", v)
	}
	e := encoder{buf: dst}
	if err := e.value(rv.Elem(), 0); err != nil {
		if pe, ok := err.(*PathError); ok {
			pe.join()
		}
		return dst, err
	}
	return e.buf, nil
}

// Decode reads b, as Append wrote it for the same type, into *v. v must be
// a non-nil pointer to a zero value.
func Decode(b []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("valuecodec: Decode needs a non-nil pointer, not %T", v)
	}
	d := decoder{b: b}
	if err := d.value(rv.Elem(), 0); err != nil {
		return err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("valuecodec: %d bytes after the value", len(d.b))
	}
	return nil
}

// PathError is a value that cannot be written, with the path to it.
type PathError struct {
	Path string // from the top value: .Spec.Items[3].Extra
	Type reflect.Type
	Err  error
	// steps are the steps of Path, innermost first, as the recursion
	// returns through them (see within); join makes Path of them, in
	// time linear in its length.
	steps []string
}

func (e *PathError) join() {
	var b strings.Builder
	for _, s := range slices.Backward(e.steps) {
		b.WriteString(s)
	}
	e.Path, e.steps = b.String(), nil
	if e.Path == "" {
		e.Path = "."
	}
}

// Error names the path; a path of thousands of steps (a value nested that
// deep) by its start and end.
func (e *PathError) Error() string {
	const shown = 120
	path := e.Path
	if len(path) > 2*shown {
		path = fmt.Sprintf("%s...(%d bytes)...%s", path[:shown], len(path)-2*shown, path[len(path)-shown:])
	}
	return fmt.Sprintf("valuecodec: %s (%s): %v", path, e.Type, e.Err)
}

func (e *PathError) Unwrap() error { return e.Err }

var (
	ErrNotData = errors.New("not data: a func, chan or unsafe pointer, or an interface holding other than what JSON decodes into one")
	// ErrCycle: a pointer, map or slice that holds itself, through any
	// number of steps. Nothing decoded from JSON does; a transform may make
	// one.
	ErrCycle = errors.New("a cycle: a pointer, map or slice that holds itself")
	// ErrTooDeep: nesting deeper than maxDepth steps, far deeper than JSON's
	// 10,000 levels.
	ErrTooDeep = fmt.Errorf("nesting deeper than %d steps", maxDepth)
)

// writable returns v without the read-only mark of unexported fields, so
// that their contents can be read as data; ok is false where that needs an
// address v has not.
func writable(v reflect.Value) (reflect.Value, bool) {
	if v.CanInterface() {
		return v, true
	}
	if !v.CanAddr() {
		return v, false
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem(), true
}

type encoder struct {
	buf []byte
	// onPath holds the pointers, maps and slices being written, from
	// cycleDepth down (see deep); nil until a value is that deep.
	onPath map[ref]struct{}
}

// ref names a pointer, map or slice: where it points, its length (a
// slice's: two slices of one array differ by it) and its type (a struct
// and its first field share an address).
type ref struct {
	p unsafe.Pointer
	n int
	t reflect.Type
}

// deep writes what v, a non-nil pointer, map or slice past cycleDepth,
// holds, failing if v is being written already, further up: a cycle.
// Values above cycleDepth (those of every day) do not come here, and cost
// nothing for it.
func (e *encoder) deep(v reflect.Value, depth int) error {
	if e.onPath == nil {
		e.onPath = map[ref]struct{}{}
	}
	r := e.ref(v)
	if _, ok := e.onPath[r]; ok {
		return e.fail(v, ErrCycle)
	}
	e.onPath[r] = struct{}{}
	var err error
	switch v.Kind() {
	case reflect.Pointer:
		err = e.value(v.Elem(), depth+1)
	case reflect.Map:
		err = e.entries(v, depth)
	default:
		err = e.elems(v, depth)
	}
	delete(e.onPath, r)
	return err
}

func (e *encoder) ref(v reflect.Value) ref {
	r := ref{p: v.UnsafePointer(), t: v.Type()}
	if v.Kind() == reflect.Slice {
		r.n = v.Len()
	}
	return r
}

// fail is an error at v; the callers above it prepend their part of the
// path (within), so that the path costs nothing unless there is an error.
func (e *encoder) fail(v reflect.Value, err error) error {
	return &PathError{Type: v.Type(), Err: err}
}

// within prefixes the path of err, a *PathError, with step.
func within(err error, step func() string) error {
	if pe, ok := err.(*PathError); ok {
		pe.steps = append(pe.steps, step())
	}
	return err
}

func (e *encoder) uvarint(n uint64) { e.buf = binary.AppendUvarint(e.buf, n) }

// length writes a nil slice or map as 0 and one of n elements as n+1.
func (e *encoder) length(v reflect.Value) bool {
	if v.IsNil() {
		e.uvarint(0)
		return false
	}
	e.uvarint(uint64(v.Len()) + 1)
	return true
}

func (e *encoder) value(v reflect.Value, depth int) error {
	if depth > maxDepth {
		return e.fail(v, ErrTooDeep)
	}
	switch v.Kind() {
	case reflect.Bool:
		b := byte(0)
		if v.Bool() {
			b = 1
		}
		e.buf = append(e.buf, b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = binary.AppendVarint(e.buf, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.uvarint(v.Uint())
	case reflect.Float32, reflect.Float64:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(real(c)))
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(imag(c)))
	case reflect.String:
		e.uvarint(uint64(v.Len()))
		e.buf = append(e.buf, v.String()...)
	case reflect.Slice:
		if !e.length(v) {
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			e.buf = append(e.buf, v.Bytes()...)
			return nil
		}
		if depth >= cycleDepth {
			return e.deep(v, depth)
		}
		return e.elems(v, depth)
	case reflect.Array:
		return e.elems(v, depth)
	case reflect.Map:
		if !e.length(v) {
			return nil
		}
		if depth >= cycleDepth {
			return e.deep(v, depth)
		}
		return e.entries(v, depth)
	case reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return nil
		}
		e.buf = append(e.buf, 1)
		if depth >= cycleDepth {
			return e.deep(v, depth)
		}
		return e.value(v.Elem(), depth+1)
	case reflect.Struct:
		return e.structure(v, depth)
	case reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, tagNil)
			return nil
		}
		return e.iface(v, depth)
	default: // func, chan, unsafe pointer
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return nil
		}
		return e.fail(v, ErrNotData)
	}
	return nil
}

// entries writes the keys and values of the map v.
func (e *encoder) entries(v reflect.Value, depth int) error {
	for it := v.MapRange(); it.Next(); {
		if err := e.value(it.Key(), depth+1); err != nil {
			return within(err, func() string { return "[key]" })
		}
		if err := e.value(it.Value(), depth+1); err != nil {
			return within(err, func() string { return fmt.Sprintf("[%v]", it.Key()) })
		}
	}
	return nil
}

func (e *encoder) elems(v reflect.Value, depth int) error {
	for i := range v.Len() {
		if err := e.value(v.Index(i), depth+1); err != nil {
			return within(err, func() string { return fmt.Sprintf("[%d]", i) })
		}
	}
	return nil
}

func (e *encoder) structure(v reflect.Value, depth int) error {
	if v.Type() == timeType {
		w, ok := writable(v)
		if !ok {
			return e.fail(v, errors.New("a time.Time without an address"))
		}
		b, err := w.Interface().(time.Time).MarshalBinary()
		if err != nil {
			return e.fail(v, err)
		}
		e.uvarint(uint64(len(b)))
		e.buf = append(e.buf, b...)
		return nil
	}
	t := v.Type()
	for i := range t.NumField() {
		if err := e.value(v.Field(i), depth+1); err != nil {
			return within(err, func() string { return "." + t.Field(i).Name })
		}
	}
	return nil
}

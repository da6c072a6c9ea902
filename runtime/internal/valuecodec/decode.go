package valuecodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
	"time"
	"unsafe"
)

// ErrMalformed is what Decode returns for bytes Append did not write for
// the type read.
var ErrMalformed = errors.New("valuecodec: malformed input")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

type decoder struct{ b []byte }

func (d *decoder) byte() (byte, error) {
	if len(d.b) == 0 {
		return 0, malformed("input ends early")
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c, nil
}

func (d *decoder) uvarint() (uint64, error) {
	n, k := binary.Uvarint(d.b)
	if k <= 0 {
		return 0, malformed("bad varint")
	}
	d.b = d.b[k:]
	return n, nil
}

func (d *decoder) varint() (int64, error) {
	n, k := binary.Varint(d.b)
	if k <= 0 {
		return 0, malformed("bad varint")
	}
	d.b = d.b[k:]
	return n, nil
}

func (d *decoder) fixed64() (uint64, error) {
	if len(d.b) < 8 {
		return 0, malformed("input ends early")
	}
	n := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return n, nil
}

// bytes takes n bytes of the input.
func (d *decoder) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(d.b)) {
		return nil, malformed("length %d, %d bytes left", n, len(d.b))
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b, nil
}

// count reads the length of a slice or map (nil: ok is false) of elements
// that take at least min bytes each, refusing one the bytes left cannot
// hold: what is allocated for it is then bounded by the input.
func (d *decoder) count(min int) (n int, ok bool, err error) {
	c, err := d.uvarint()
	if err != nil || c == 0 {
		return 0, false, err
	}
	c--
	if c > uint64(len(d.b))/uint64(max(min, 1)) {
		return 0, false, malformed("%d elements, %d bytes left", c, len(d.b))
	}
	return int(c), true, nil
}

// settable returns v (addressable) without the read-only mark of an
// unexported field, so that it can be set.
func settable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func (d *decoder) value(v reflect.Value, depth int) error {
	if depth > maxDepth {
		return malformed("nesting deeper than %d steps", maxDepth)
	}
	v = settable(v)
	switch v.Kind() {
	case reflect.Bool:
		c, err := d.byte()
		if err != nil || c > 1 {
			return errors.Join(err, malformed("bool %d", c))
		}
		v.SetBool(c == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := d.varint()
		if err != nil {
			return err
		}
		if v.OverflowInt(n) {
			return malformed("%d overflows %s", n, v.Type())
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		if v.OverflowUint(n) {
			return malformed("%d overflows %s", n, v.Type())
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		n, err := d.fixed64()
		if err != nil {
			return err
		}
		v.SetFloat(math.Float64frombits(n))
	case reflect.Complex64, reflect.Complex128:
		re, err := d.fixed64()
		if err != nil {
			return err
		}
		im, err := d.fixed64()
		if err != nil {
			return err
		}
		v.SetComplex(complex(math.Float64frombits(re), math.Float64frombits(im)))
	case reflect.String:
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		b, err := d.bytes(n)
		if err != nil {
			return err
		}
		v.SetString(string(b))
	case reflect.Slice:
		n, ok, err := d.count(minSizeOf(v.Type().Elem()))
		if err != nil || !ok {
			return err
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b, err := d.bytes(uint64(n))
			if err != nil {
				return err
			}
			v.SetBytes(append(make([]byte, 0, n), b...))
			return nil
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		return d.elems(v, depth)
	case reflect.Array:
		return d.elems(v, depth)
	case reflect.Map:
		t := v.Type()
		n, ok, err := d.count(minSizeOf(t.Key()) + minSizeOf(t.Elem()))
		if err != nil || !ok {
			return err
		}
		m := reflect.MakeMapWithSize(t, n)
		k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		for range n {
			k.SetZero()
			e.SetZero()
			if err := d.value(k, depth+1); err != nil {
				return err
			}
			if err := d.value(e, depth+1); err != nil {
				return err
			}
			m.SetMapIndex(k, e)
		}
		if m.Len() != n {
			return malformed("a map with a key twice")
		}
		v.Set(m)
	case reflect.Pointer:
		c, err := d.byte()
		if err != nil || c > 1 {
			return errors.Join(err, malformed("pointer mark %d", c))
		}
		if c == 0 {
			return nil
		}
		p := reflect.New(v.Type().Elem())
		if err := d.value(p.Elem(), depth+1); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		if v.Type() == timeType {
			n, err := d.uvarint()
			if err != nil {
				return err
			}
			b, err := d.bytes(n)
			if err != nil {
				return err
			}
			if err := v.Addr().Interface().(*time.Time).UnmarshalBinary(b); err != nil {
				return malformed("time: %v", err)
			}
			return nil
		}
		for i := range v.NumField() {
			if err := d.value(v.Field(i), depth+1); err != nil {
				return err
			}
		}
	case reflect.Interface:
		return d.iface(v, depth)
	default: // func, chan, unsafe pointer: only nil is written
		c, err := d.byte()
		if err != nil || c != 0 {
			return errors.Join(err, malformed("%s that is not nil", v.Kind()))
		}
	}
	return nil
}

func (d *decoder) elems(v reflect.Value, depth int) error {
	for i := range v.Len() {
		if err := d.value(v.Index(i), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// minSizes caches minSize by type.
var minSizes sync.Map // reflect.Type -> int

// minSizeOf is minSize(t), computed once per type.
func minSizeOf(t reflect.Type) int {
	if n, ok := minSizes.Load(t); ok {
		return n.(int)
	}
	n := minSize(t, 0)
	minSizes.Store(t, n)
	return n
}

// minSize is the fewest bytes a value of t takes, at most 1<<20.
func minSize(t reflect.Type, depth int) int {
	if depth > maxDepth {
		return 0
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return 8
	case reflect.Complex64, reflect.Complex128:
		return 16
	case reflect.Array:
		return min(t.Len()*minSize(t.Elem(), depth+1), 1<<20)
	case reflect.Struct:
		if t == timeType {
			return 1
		}
		n := 0
		for i := range t.NumField() {
			n = min(n+minSize(t.Field(i).Type, depth+1), 1<<20)
		}
		return n
	default: // one byte: a varint, a length, a nil mark
		return 1
	}
}

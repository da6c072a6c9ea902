package projection

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	kjson "sigs.k8s.io/json"
)

// JSONReader reads one JSON value with a validating tokenizer (jsontext):
// the syntax of everything, skipped values included, is checked as
// encoding/json checks it, and more strictly (duplicate member names,
// invalid UTF-8 and lone surrogates are errors: encoding/json takes the
// last duplicate and replaces bad characters, so those inputs go to the
// full decoder).
//
// Readers are pooled: NewJSONReader takes one, Close returns it.
//
//	d := projection.NewJSONReader(b)
//	if d.Object() {
//		for d.Member() {
//			switch string(d.Key()) {
//			case "name":
//				m.Name = d.String()
//			default:
//				d.Skip()
//			}
//		}
//	}
//	return d.Close()
//
// What a read returns follows sigs.k8s.io/json (encoding/json), into a
// value that starts zero: null leaves a string, number, bool or struct as
// it is and makes a pointer, slice or map nil; a value of another JSON type
// than the Go type takes is an error.
type JSONReader struct {
	dec     jsontext.Decoder
	in      bytes.Buffer
	key     []byte // the last member name, unescaped: into the input, or keyBuf
	keyBuf  []byte
	scratch []byte // unescaped strings
	err     error
}

var jsonReaders = sync.Pool{New: func() any { return new(JSONReader) }}

// NewJSONReader returns a reader of b, which must not change until Close.
func NewJSONReader(b []byte) *JSONReader {
	d := jsonReaders.Get().(*JSONReader)
	d.in = *bytes.NewBuffer(b) // read in place: jsontext reads a bytes.Buffer without copying
	d.dec.Reset(&d.in)
	return d
}

// Close returns the first error of the reader, or an error when anything
// but whitespace follows the value, and puts the reader back in the pool.
func (d *JSONReader) Close() error {
	if d.err == nil {
		if _, err := d.dec.ReadToken(); err != io.EOF {
			d.fail(fmt.Errorf("after the value: %v", err))
		}
	}
	err := d.err
	d.err, d.key = nil, nil
	d.in = bytes.Buffer{}
	d.dec.Reset(&d.in)
	jsonReaders.Put(d)
	return err
}

// Err returns the first error of the reader, nil if none.
func (d *JSONReader) Err() error { return d.err }

// Check records err, the error of decoding a value elsewhere, if it is the first.
func (d *JSONReader) Check(err error) {
	if err != nil && d.err == nil {
		d.err = err
	}
}

var errType = errors.New("unexpected JSON type")

func (d *JSONReader) fail(err error) {
	if d.err == nil {
		d.err = fmt.Errorf("projection: JSON at %s: %w", d.dec.StackPointer(), err)
	}
}

// begin reads the start of an object or array (open): true when it is
// one, false for null and, as an error, anything else.
func (d *JSONReader) begin(open jsontext.Kind) bool {
	if d.err != nil {
		return false
	}
	switch k := d.dec.PeekKind(); k {
	case open:
		if _, err := d.dec.ReadToken(); err != nil {
			d.fail(err)
			return false
		}
		return true
	case 'n':
		d.Skip()
	default:
		d.Skip()
		d.fail(fmt.Errorf("%w %v, want %v", errType, k, open))
	}
	return false
}

// end tells whether the next token closes the object or array being read,
// and reads it.
func (d *JSONReader) end(closing jsontext.Kind) bool {
	if d.err != nil {
		return true
	}
	if d.dec.PeekKind() != closing {
		return false
	}
	if _, err := d.dec.ReadToken(); err != nil {
		d.fail(err)
	}
	return true
}

// Object reads the start of an object: true for one, whose members Member
// then reads; false for null (leave the value as it is) and for anything
// else, which is an error.
func (d *JSONReader) Object() bool { return d.begin('{') }

// Member reads the next member's name, which Key returns; false at the end
// of the object or after an error. The member's value must be read next.
func (d *JSONReader) Member() bool {
	if d.end('}') {
		return false
	}
	name, err := d.dec.ReadValue()
	if err != nil {
		d.fail(err)
		return false
	}
	d.key = d.unquote(name, &d.keyBuf)
	return d.err == nil
}

// Key is the name of the member Member read, unescaped. It is valid until
// the next read.
func (d *JSONReader) Key() []byte { return d.key }

// Array reads the start of an array: true for one, whose elements Element
// then reads; false for null and for anything else, which is an error.
func (d *JSONReader) Array() bool { return d.begin('[') }

// Element tells whether the array being read has another element, which
// must be read next; false at its end or after an error.
func (d *JSONReader) Element() bool { return !d.end(']') }

// Null reads a null and returns true, or returns false and reads nothing.
func (d *JSONReader) Null() bool {
	if d.err != nil || d.dec.PeekKind() != 'n' {
		return false
	}
	d.Skip()
	return true
}

// Skip skips the next value, checking its syntax.
func (d *JSONReader) Skip() {
	if d.err != nil {
		return
	}
	if err := d.dec.SkipValue(); err != nil {
		d.fail(err)
	}
}

// scalar reads the next value, which must be null or of kind k; ok is false for null.
func (d *JSONReader) scalar(kinds string) (v jsontext.Value, ok bool) {
	if d.err != nil {
		return nil, false
	}
	v, err := d.dec.ReadValue()
	if err != nil {
		d.fail(err)
		return nil, false
	}
	k := v.Kind()
	if k == 'n' {
		return nil, false
	}
	for i := range len(kinds) {
		if byte(k) == kinds[i] {
			return v, true
		}
	}
	d.fail(fmt.Errorf("%w %v, want one of %q", errType, k, kinds))
	return nil, false
}

// unquote returns the content of the JSON string v: a sub-slice of v when
// it has no escapes, else unescaped into *buf.
func (d *JSONReader) unquote(v jsontext.Value, buf *[]byte) []byte {
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	out, err := jsontext.AppendUnquote((*buf)[:0], v)
	if err != nil {
		d.fail(err)
		return nil
	}
	*buf = out
	return out
}

// String reads a string (copied); "" for null.
func (d *JSONReader) String() string {
	v, ok := d.scalar(`"`)
	if !ok {
		return ""
	}
	return string(d.unquote(v, &d.scratch))
}

// Bool reads a bool; false for null.
func (d *JSONReader) Bool() bool {
	v, ok := d.scalar("tf")
	return ok && v.Kind() == 't'
}

// Int reads an integer that fits in bits bits; 0 for null. A fraction or
// an exponent is an error, as in encoding/json.
func (d *JSONReader) Int(bits int) int64 { return number(d, bits, parseInt) }

// Uint reads an unsigned integer that fits in bits bits; 0 for null.
func (d *JSONReader) Uint(bits int) uint64 { return number(d, bits, parseUint) }

// Float reads a number as a float of bits bits; 0 for null. One out of
// range is an error, as in encoding/json.
func (d *JSONReader) Float(bits int) float64 {
	return number(d, bits, func(v []byte, bits int) (float64, error) { return strconv.ParseFloat(string(v), bits) })
}

// number reads a number with parse; 0 for null.
func number[T any](d *JSONReader, bits int, parse func([]byte, int) (T, error)) T {
	var n T
	v, ok := d.scalar("0")
	if !ok {
		return n
	}
	n, err := parse(v, bits)
	if err != nil {
		d.fail(err)
	}
	return n
}

// Value decodes the next value into v, a pointer, with sigs.k8s.io/json as
// the full decoder would: for values kept whole and types that decode
// their JSON their own way (metav1.Time, resource.Quantity...).
func (d *JSONReader) Value(v any) {
	if d.err != nil {
		return
	}
	raw, err := d.dec.ReadValue()
	if err != nil {
		d.fail(err)
		return
	}
	d.Check(kjson.UnmarshalCaseSensitivePreserveInts(raw, v))
}

// Fail records an error: for what a generated decoder does not handle
// itself (a ",string" field), so that the full decoder reads the object.
func (d *JSONReader) Fail(what string) { d.fail(errors.New(what)) }

// StringMap reads an object of strings into *m: nil for null, else a new
// map (empty for {}); a null value is "", as in encoding/json.
func StringMap[M ~map[K]V, K ~string, V ~string](d *JSONReader, m *M) {
	if d.Null() {
		*m = nil
		return
	}
	if !d.Object() {
		return
	}
	*m = M{}
	for d.Member() {
		k := K(d.key)
		(*m)[k] = V(d.String())
	}
}

var errNumber = errors.New("number is not an integer in range")

// parseInt parses the JSON number v (valid JSON: the tokenizer checked it)
// as strconv.ParseInt(v, 10, bits) would, without making a string.
func parseInt(v []byte, bits int) (int64, error) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	u, err := parseUint(v, 64)
	if err != nil {
		return 0, err
	}
	limit := uint64(1) << (bits - 1)
	switch {
	case !neg && u >= limit, neg && u > limit:
		return 0, errNumber
	case neg:
		return -int64(u), nil
	}
	return int64(u), nil
}

// parseUint parses the JSON number v as strconv.ParseUint(v, 10, bits).
func parseUint(v []byte, bits int) (uint64, error) {
	if len(v) == 0 {
		return 0, errNumber
	}
	var n uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, errNumber // a sign, fraction or exponent
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, errNumber
		}
		n = n*10 + d
	}
	if bits < 64 && n >= uint64(1)<<bits {
		return 0, errNumber
	}
	return n, nil
}

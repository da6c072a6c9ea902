package projection

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// ProtoReader reads the fields of one protobuf message, in the order they
// come: protobuf does not promise any, and a field may come more than once
// (the last wins for a scalar, a message is merged, a repeated field
// appended, as the generated code of the built-in APIs does).
//
//	r := projection.NewProtoReader(b)
//	for r.Next() {
//		switch r.Num() {
//		case 1:
//			m.Name = r.String()
//		default:
//			r.Skip()
//		}
//	}
//	return r.Err()
//
// It is stricter than that generated code, never looser: a wire type that
// does not match the field, a varint longer than protobuf allows, a length
// beyond the message, is an error (which a generated decoder answers with
// the full decoder).
type ProtoReader struct {
	b   []byte
	num protowire.Number
	typ protowire.Type
	err error
}

// NewProtoReader returns a reader of the message b.
func NewProtoReader(b []byte) ProtoReader { return ProtoReader{b: b} }

// Next reads the next field's tag; false at the end of the message or
// after an error.
func (r *ProtoReader) Next() bool {
	if r.err != nil || len(r.b) == 0 {
		return false
	}
	num, typ, n := protowire.ConsumeTag(r.b)
	if n < 0 {
		r.fail(protowire.ParseError(n))
		return false
	}
	r.b, r.num, r.typ = r.b[n:], num, typ
	return true
}

// Num is the number of the field Next read.
func (r *ProtoReader) Num() protowire.Number { return r.num }

// Skip skips the field's value, of any wire type.
func (r *ProtoReader) Skip() {
	if r.err != nil {
		return
	}
	n := protowire.ConsumeFieldValue(r.num, r.typ, r.b)
	if n < 0 {
		r.fail(protowire.ParseError(n))
		return
	}
	r.b = r.b[n:]
}

// Bytes returns the value of a length-delimited field: a string, bytes, or
// an embedded message. The slice points into the message: copy what is kept.
func (r *ProtoReader) Bytes() []byte {
	if !r.want(protowire.BytesType) {
		return nil
	}
	v, n := protowire.ConsumeBytes(r.b)
	if n < 0 {
		r.fail(protowire.ParseError(n))
		return nil
	}
	r.b = r.b[n:]
	return v
}

// CopyBytes returns the value of a bytes field copied into dst[:0]:
// never nil, as the generated code of the built-in APIs makes it.
func (r *ProtoReader) CopyBytes(dst []byte) []byte {
	v := r.Bytes()
	if r.err != nil {
		return dst
	}
	dst = append(dst[:0], v...)
	if dst == nil {
		dst = []byte{}
	}
	return dst
}

// String returns the value of a string field, copied.
func (r *ProtoReader) String() string { return string(r.Bytes()) }

// Varint returns the value of a varint field (bool and integers).
func (r *ProtoReader) Varint() uint64 { return r.scalar(protowire.VarintType, protowire.ConsumeVarint) }

// Fixed64 returns the value of a fixed64 field (a double).
func (r *ProtoReader) Fixed64() uint64 {
	return r.scalar(protowire.Fixed64Type, protowire.ConsumeFixed64)
}

// Fixed32 returns the value of a fixed32 field (a float).
func (r *ProtoReader) Fixed32() uint32 {
	return uint32(r.scalar(protowire.Fixed32Type, func(b []byte) (uint64, int) {
		v, n := protowire.ConsumeFixed32(b)
		return uint64(v), n
	}))
}

// scalar reads a value of wire type typ with consume.
func (r *ProtoReader) scalar(typ protowire.Type, consume func([]byte) (uint64, int)) uint64 {
	if !r.want(typ) {
		return 0
	}
	v, n := consume(r.b)
	if n < 0 {
		r.fail(protowire.ParseError(n))
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Check records err, the error of decoding a field's value elsewhere (an
// embedded message), if it is the first.
func (r *ProtoReader) Check(err error) {
	if err != nil && r.err == nil {
		r.err = err
	}
}

// Err returns the first error of the reader, nil if none.
func (r *ProtoReader) Err() error { return r.err }

func (r *ProtoReader) fail(err error) {
	if r.err == nil {
		r.err = fmt.Errorf("projection: protobuf field %d: %w", r.num, err)
	}
}

var errWireType = errors.New("unexpected wire type")

func (r *ProtoReader) want(typ protowire.Type) bool {
	if r.err != nil {
		return false
	}
	if r.typ != typ {
		r.fail(fmt.Errorf("%w %d, want %d", errWireType, r.typ, typ))
		return false
	}
	return true
}

// Integer is what a varint field holds.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// AppendVarints appends the values of a repeated integer field to s:
// one value, or all of a packed field.
func AppendVarints[T Integer](r *ProtoReader, s []T) []T {
	return appendRepeated(r, s, protowire.VarintType, func(b []byte) (T, int) {
		v, n := protowire.ConsumeVarint(b)
		return T(v), n
	})
}

// AppendBools appends the values of a repeated bool field to s.
func AppendBools[T ~bool](r *ProtoReader, s []T) []T {
	return appendRepeated(r, s, protowire.VarintType, func(b []byte) (T, int) {
		v, n := protowire.ConsumeVarint(b)
		return v != 0, n
	})
}

// AppendFloat64s appends the values of a repeated double field to s.
func AppendFloat64s[T ~float64](r *ProtoReader, s []T) []T {
	return appendRepeated(r, s, protowire.Fixed64Type, func(b []byte) (T, int) {
		v, n := protowire.ConsumeFixed64(b)
		return T(math.Float64frombits(v)), n
	})
}

// AppendFloat32s appends the values of a repeated float field to s.
func AppendFloat32s[T ~float32](r *ProtoReader, s []T) []T {
	return appendRepeated(r, s, protowire.Fixed32Type, func(b []byte) (T, int) {
		v, n := protowire.ConsumeFixed32(b)
		return T(math.Float32frombits(v)), n
	})
}

// appendRepeated appends to s the values of a repeated field whose
// elements are of wire type typ, read by consume: one value, or all of a
// packed field (length-delimited), as the generated code of the built-in
// APIs takes either.
func appendRepeated[T any](r *ProtoReader, s []T, typ protowire.Type, consume func([]byte) (T, int)) []T {
	if r.err == nil && r.typ == protowire.BytesType { // packed
		for b := r.Bytes(); len(b) > 0; {
			v, n := consume(b)
			if n < 0 {
				r.fail(protowire.ParseError(n))
				return s
			}
			s, b = append(s, v), b[n:]
		}
		return s
	}
	if !r.want(typ) {
		return s
	}
	v, n := consume(r.b)
	if n < 0 {
		r.fail(protowire.ParseError(n))
		return s
	}
	r.b = r.b[n:]
	return append(s, v)
}

// entry reads a map entry, a message of key = 1 and value = 2, both
// length-delimited: the last of each, nil when missing. Other fields are
// skipped, as the generated code of the built-in APIs does.
func (r *ProtoReader) entry() (key, value []byte) {
	e := NewProtoReader(r.Bytes())
	for e.Next() {
		switch e.Num() {
		case 1:
			key = e.Bytes()
		case 2:
			value = e.Bytes()
		default:
			e.Skip()
		}
	}
	r.Check(e.Err())
	return key, value
}

// StringEntry reads an entry of a map of strings into *m, made if nil.
func StringEntry[M ~map[K]V, K ~string, V ~string](r *ProtoReader, m *M) {
	k, v := r.entry()
	if r.err != nil {
		return
	}
	if *m == nil {
		*m = M{}
	}
	(*m)[K(k)] = V(v)
}

// MessageEntry reads an entry of a map of messages into *m, made if nil:
// the value is decoded by its own Unmarshal, zero when missing.
func MessageEntry[M ~map[K]V, K ~string, V any, PV interface {
	*V
	Unmarshal([]byte) error
}](r *ProtoReader, m *M) {
	k, v := r.entry()
	if r.err != nil {
		return
	}
	var val V
	if v != nil {
		r.Check(PV(&val).Unmarshal(v))
	}
	if *m == nil {
		*m = M{}
	}
	(*m)[K(k)] = val
}

package generators

import (
	"reflect"
	"strconv"
	"strings"
)

// protoTag parses a field's protobuf tag, `protobuf:"bytes,2,rep,name=containers"`.
func protoTag(tag string) *ProtoField {
	v, ok := reflect.StructTag(tag).Lookup("protobuf")
	if !ok || v == "-" {
		return nil
	}
	parts := strings.Split(v, ",")
	if len(parts) < 2 {
		return nil
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n <= 0 {
		return nil
	}
	return &ProtoField{Number: n, Wire: parts[0]}
}

// protobufCapable tells whether every kept field of p, and its list, can
// be read from protobuf by a generated decoder: a wire encoding that
// matches the field's Go type as the generated code of the built-in APIs
// writes it.
func protobufCapable(p *Projection) bool {
	if p.ListMeta.Proto == nil || p.Items.Proto == nil {
		return false // the upstream list has no protobuf
	}
	for _, s := range p.Structs {
		for _, f := range s.Fields {
			if f.Proto != nil && !protoFieldOK(f.Proto.Wire, f.Type) {
				return false
			}
		}
	}
	return true
}

// protoFieldOK tells whether a field of type t can be read in the wire
// encoding wire: a value, or each element of a repeated field.
func protoFieldOK(wire string, t *Type) bool {
	if u := t.Under; u != nil && t.Kind == TypeUpstream {
		return protoFieldOK(wire, u)
	}
	if t.Kind == TypeSlice && !t.IsBytes() {
		e := t.Elem
		if e.Kind == TypePointer {
			e = e.Elem
			if !e.isMessage() {
				return false // a list of pointers to scalars has no protobuf form
			}
		}
		return protoValueOK(wire, e)
	}
	if t.Kind == TypePointer {
		return protoValueOK(wire, t.Elem)
	}
	return protoValueOK(wire, t)
}

// protoValueOK tells whether one value of type t can be read in the wire
// encoding wire.
func protoValueOK(wire string, t *Type) bool {
	b := t.Basic
	switch wire {
	case "bytes":
		switch {
		case b == "string", t.IsBytes(), t.isMessage():
			return true
		case t.Kind == TypeMap, t.Under != nil && t.Under.Kind == TypeMap:
			m := t
			if t.Under != nil {
				m = t.Under
			}
			return m.Key.Basic == "string" && (m.Elem.Basic == "string" || m.Elem.isMessage())
		}
	case "varint":
		return b == "bool" || isInteger(b)
	case "fixed64":
		return b == "float64"
	case "fixed32":
		return b == "float32"
	}
	return false
}

// isMessage tells whether t is read from a protobuf message: a generated
// struct, or an upstream struct with the generated Unmarshal.
func (t *Type) isMessage() bool {
	return t.Kind == TypeStruct || t.Kind == TypeUpstream && t.Protobuf && t.Basic == "" && t.Under == nil
}

// IsBytes tells whether t is []byte (or a named type over it).
func (t *Type) IsBytes() bool {
	if t.Under != nil {
		return t.Under.IsBytes()
	}
	return t.Kind == TypeSlice && (t.Elem.Basic == "uint8" || t.Elem.Basic == "byte") && t.Elem.Name == t.Elem.Basic
}

func isInteger(b string) bool {
	switch b {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "byte":
		return true
	}
	return false
}

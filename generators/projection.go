package generators

import "go/token"

// Projection is what a projected syncer keeps of its API type: a
// generated Go type with only the fields that +syncer-gen:keep markers
// name, and what its decoders need to read them off the wire.
type Projection struct {
	// Name is the projected type's name: the alias's ("NodePod"), or
	// "<Kind>View" for keep markers on the type itself. Its list type is
	// Name+"List".
	Name string
	// Keeps are the kept field paths as written, in marker order.
	Keeps []string
	// Root is the projected type: TypeMeta and ObjectMeta (the upstream
	// types, Generated false), then the kept fields.
	Root *Struct
	// Structs are the structs that decoders, From and deep copies walk:
	// Root first, then the generated ones by Name, then the upstream
	// metav1.ObjectMeta and metav1.TypeMeta with the fields they keep.
	Structs []*Struct
	// List is the upstream list type, e.g. {k8s.io/api/core/v1 PodList}.
	List TypeName
	// ListMeta and Items are the upstream list's fields, as the projected
	// list declares them (with Items of the projected type).
	ListMeta, Items *Field
	// Protobuf is true when the upstream type and its list decode
	// protobuf (the built-in APIs) and every kept field can be read from
	// it, none kept flat (a field of an unexported embedded struct, whose
	// number is the embedded message's): the projection then has a
	// protobuf decoder. Otherwise the server is asked for JSON only.
	Protobuf bool
	// MetadataOnly is true when every keep path is under .metadata: the
	// syncer asks the server for PartialObjectMetadata, which its
	// decoders read as they read a whole object (runtime.Resource's
	// MetadataOnly).
	MetadataOnly bool
	// Pos is where the first keep marker is.
	Pos token.Position
}

// TypeName names a Go type by import path and name.
type TypeName struct {
	Pkg, Name string
}

// Struct is a struct that a projection keeps fields of.
type Struct struct {
	// Name is the generated struct's name, e.g. "NodePodSpec"; for an
	// upstream struct (Generated false), a name for its generated
	// functions, e.g. "NodePodObjectMeta".
	Name string
	// Upstream is the API struct it projects, e.g. {k8s.io/api/core/v1 PodSpec}.
	Upstream TypeName
	// Generated is false for metav1.ObjectMeta and metav1.TypeMeta,
	// which the projected type holds as they are, decoding only the
	// kept fields into them.
	Generated bool
	// Fields are the kept fields, in the upstream struct's order, those
	// of unexported embedded structs among them, flat (generated code
	// cannot name those structs; Go promotes their fields).
	Fields []*Field
	// JSON are the members of the struct's JSON object that decoders
	// read, with those of embedded structs whose fields are inlined.
	JSON []*JSONMember
}

// JSONMember is a member of a struct's JSON object that a projection
// reads: its name, and the field it is decoded into, reached through the
// embedded structs whose fields JSON inlines (Path's last is the field).
type JSONMember struct {
	Name string
	Path []*Field
}

// Field is one kept field of a Struct.
type Field struct {
	// GoName is the field's name in the projected struct: the upstream
	// name, or for an embedded generated struct that struct's name.
	GoName string
	// UpstreamName is the field's name in the upstream struct.
	UpstreamName string
	// Embedded is true for an embedded field.
	Embedded bool
	// Tag is the upstream field's struct tag, kept as it is: JSON name,
	// omitempty, protobuf number.
	Tag string
	// JSONName is the member name in JSON; "" for an embedded struct
	// whose fields are inlined.
	JSONName string
	// JSONQuoted is true for a field tagged ",string" (a number or bool
	// written as a JSON string): decoders hand such an object to the
	// full decoder.
	JSONQuoted bool
	// Proto is the field's protobuf encoding, nil when it has none (not
	// on the wire in protobuf, like metav1.TypeMeta).
	Proto *ProtoField
	// Type is the field's Go type in the projected struct.
	Type *Type
}

// ProtoField is a field's protobuf tag: `protobuf:"bytes,2,rep,name=containers"`.
type ProtoField struct {
	Number int
	// Wire is the encoding: "bytes", "varint", "fixed64" or "fixed32".
	Wire string
}

// TypeKind is what a Type is.
type TypeKind int

const (
	// TypeUpstream is a type kept as it is: a basic type (Name only) or a
	// named type of its package.
	TypeUpstream TypeKind = iota
	// TypeStruct is a generated struct: Struct.
	TypeStruct
	// TypePointer points to Elem.
	TypePointer
	// TypeSlice is a slice of Elem.
	TypeSlice
	// TypeMap is a map from Key to Elem.
	TypeMap
)

// Type is a Go type of a projected struct's field: upstream types as they
// are, with the structs on a kept path replaced by generated ones.
type Type struct {
	Kind TypeKind
	// Pkg and Name name a TypeUpstream: Pkg "" and Name "string" for a
	// basic type, "any" for the empty interface.
	Pkg, Name string
	// Struct is the generated struct of a TypeStruct.
	Struct *Struct
	// Elem is the element of a pointer, slice or map; Key the key of a map.
	Elem, Key *Type
	// Basic is the basic type under a TypeUpstream of a basic kind
	// ("string", "bool", "int32", "float64"...), "" for any other.
	Basic string
	// OwnJSON is true when the type decodes JSON its own way
	// (UnmarshalJSON or UnmarshalText, as metav1.Time, resource.Quantity
	// or intstr.IntOrString do): decoders hand its value to sigs.k8s.io/json.
	OwnJSON bool
	// Protobuf is true for a struct type whose pointer has the generated
	// Unmarshal([]byte) error method of the built-in APIs.
	Protobuf bool
	// DeepCopy is true for a named type whose pointer has DeepCopyInto.
	DeepCopy bool
	// Plain is true when a value is copied whole by assignment: no
	// pointers, slices, maps or interfaces anywhere in it.
	Plain bool
	// Under is the underlying type of a named slice, map or pointer type
	// (corev1.ResourceList), which decoders read as that.
	Under *Type
}

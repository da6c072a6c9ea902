package generators

import "go/token"

// Model is what one run generates: a Go package of syncers per API group
// and version. It is the only thing templates see.
type Model struct {
	Packages []*Package // sorted by Dir
	// Read are the import paths of the packages whose markers the run read
	// (its patterns' packages and the --type packages), sorted. A run owns
	// the output packages generated from them, and only those.
	Read []string
	// Warnings are problems that do not stop the run, such as a run that
	// selects nothing; the command prints them.
	Warnings ErrorList
}

// Package is one generated Go package: the syncers of one group/version.
type Package struct {
	// Dir is the package's folder under the output folder, slash-separated:
	// <group>/<version>, where <group> is the API package's +groupGoName in
	// lower case, else the group's first label ("gateway" for
	// gateway.networking.k8s.io), "core" for the core group.
	Dir string
	// Name is the Go package name: the version, e.g. "v1".
	Name string
	// ImportPath is the package's Go import path.
	ImportPath string
	// Group and Version are the API group ("" for core) and version.
	Group, Version string
	// Resources are the package's syncers, sorted by Kind, then Name.
	Resources []*Resource
	// Sources are the import paths of the packages whose markers selected
	// its resources, sorted: what the package is generated from.
	Sources []string
}

// Resource is one syncer: a Go API type bound to its REST resource.
type Resource struct {
	// Kind is the object kind, which is also the API type's Go name, e.g. "Pod".
	Kind string
	// Name is the Go name of the objects the syncer keeps, which the
	// generated names start with (NameSyncer, NameStore...): the Kind, or
	// the projected type's name.
	Name string
	// Projection, when set, makes the syncer keep a generated type with
	// only the fields that +syncer-gen:keep markers name.
	Projection *Projection
	// ListKind is the name of the list type, e.g. "PodList".
	ListKind string
	// TypePkg is the import path of the Go API package, e.g. "k8s.io/api/core/v1".
	TypePkg string
	// Group and Version are the API group and version.
	Group, Version string
	// Resource is the plural resource name used in URLs, e.g. "pods".
	Resource string
	// Namespaced is false for +genclient:nonNamespaced types.
	Namespaced bool
	// StripManagedFields drops metadata.managedFields from each object by default.
	StripManagedFields bool
	// Indexes are the marker-declared indexes, sorted by Name.
	Indexes []*Index
	// SelectedIn is the import path of the package whose markers selected
	// the type: TypePkg, or the package of an alias to it.
	SelectedIn string
	// Pos is where the type was selected: its marker, or the package's.
	Pos token.Position

	groupGoName string // the API package's +groupGoName
}

// Index is a typed index of a resource's store, declared by a
// +syncer-gen:index marker.
type Index struct {
	// Name is the index name, e.g. "nodeName".
	Name string
	// Method is the name of the store's typed lookup, e.g. "ByNodeName".
	Method string
	// Path is the field path as written, e.g. ".spec.nodeName".
	Path string
	// Steps walk from the object to the indexed values (of the projected
	// type, for a projection).
	Steps []Step
	// Format turns a value reached by Steps into its index string.
	Format Format
	// Named is true when the value's type is a defined type (such as
	// corev1.PodPhase) that must be converted to its basic type first.
	Named bool
	// Pos is where the marker is.
	Pos token.Position
}

// StepKind is what a Step does to the value at hand.
type StepKind int

const (
	// StepField selects the struct field GoName.
	StepField StepKind = iota
	// StepPointer goes through a pointer; a nil pointer gives no value.
	StepPointer
	// StepEach goes through every element of a slice.
	StepEach
	// StepKey takes the map entry Key; a missing key gives no value.
	StepKey
	// StepFilter goes through every element of a slice that passes each
	// of Filter's conditions ([?(@.controller==true)]).
	StepFilter
)

// Step is one move along an index's field path.
type Step struct {
	Kind   StepKind
	GoName string      // StepField
	Key    string      // StepKey
	Filter []Condition // StepFilter
}

// Condition is one test of a StepFilter: the value Steps reach from an
// element, compared with Value.
type Condition struct {
	// Steps are StepField and StepPointer moves from the element; a nil
	// pointer gives no value, which fails == and passes !=.
	Steps []Step
	// Equal is true for ==, false for !=.
	Equal bool
	// Value is the literal: a string, a bool, or an integer (an int, or a
	// uint64 past the int64 range) within the range of the value's type,
	// of the kind of the value Steps reach.
	Value any
}

// Format is how a value at the end of a path becomes an index string.
type Format int

const (
	// FormatString: a string, used as it is.
	FormatString Format = iota
	// FormatBool: strconv.FormatBool.
	FormatBool
	// FormatInt: strconv.FormatInt of a signed integer.
	FormatInt
	// FormatUint: strconv.FormatUint of an unsigned integer.
	FormatUint
)

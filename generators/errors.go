package generators

import (
	"fmt"
	"go/token"
	"strings"
)

// ErrorType sorts the problems found in markers and selections, so that
// callers and tests can tell them apart without reading messages, as
// apimachinery's field.ErrorType does for API validation.
type ErrorType string

// The types of Error.
const (
	// ErrorTypeSyntax: the marker does not parse.
	ErrorTypeSyntax ErrorType = "Syntax"
	// ErrorTypeUnknownKey: a +syncer-gen:<key> that syncer-gen does not know.
	ErrorTypeUnknownKey ErrorType = "UnknownKey"
	// ErrorTypeInvalid: a known marker with a value or arguments it does not take.
	ErrorTypeInvalid ErrorType = "Invalid"
	// ErrorTypeNotSupported: a marker in a place it does not apply (e.g. an
	// index on a package), or a type syncer-gen cannot sync (no list or watch verb).
	ErrorTypeNotSupported ErrorType = "NotSupported"
	// ErrorTypeNotFound: a field path, type or package that does not exist.
	ErrorTypeNotFound ErrorType = "NotFound"
	// ErrorTypeRequired: something syncer-gen needs and did not find, such as
	// a +groupName or a <Kind>List type.
	ErrorTypeRequired ErrorType = "Required"
	// ErrorTypeDuplicate: the same index, resource or output folder declared twice.
	ErrorTypeDuplicate ErrorType = "Duplicate"
	// ErrorTypeConflict: two markers that state the same thing (a resource
	// name, a scope) with different values.
	ErrorTypeConflict ErrorType = "Conflict"
	// ErrorTypeLoad: the Go packages could not be loaded.
	ErrorTypeLoad ErrorType = "Load"
)

// Error is one problem, at a position in a source file.
type Error struct {
	// Pos is where the problem is: the marker's "+", or the part of its
	// value at fault. Pos.Filename is empty when no file is to blame.
	Pos token.Position
	// Type sorts the problem.
	Type ErrorType
	// Marker names the marker or selection at fault, e.g. "+syncer-gen:index".
	Marker string
	// Detail says what is wrong and what was expected.
	Detail string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Pos.Filename != "" {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	if e.Marker != "" {
		b.WriteString(e.Marker)
		b.WriteString(": ")
	}
	b.WriteString(e.Detail)
	return b.String()
}

// ErrorList is every problem of one run, in source order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// errorf returns an Error at pos.
func errorf(pos token.Position, typ ErrorType, marker, format string, args ...any) *Error {
	return &Error{Pos: pos, Type: typ, Marker: marker, Detail: fmt.Sprintf(format, args...)}
}

// at returns pos moved n columns right, for a part of a marker's text.
func at(pos token.Position, n int) token.Position {
	pos.Column += n
	pos.Offset += n
	return pos
}

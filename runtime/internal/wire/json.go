package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// The JSON decoders of fastDecoding (decoding.go), for custom resources,
// which have no protobuf. apimachinery's JSON serializer reads every input
// with encoding/json first (SimpleMetaFactory.Interpret) to find its
// apiVersion and kind, then unmarshals it with sigs.k8s.io/json; a
// WatchEvent's object is copied into its RawExtension. Here a small scanner
// finds the top-level members instead (neither encoding/json's scanner nor
// sigs.k8s.io/json's is exported), and the input goes to the wrapped
// serializer whenever encoding/json might read it otherwise: a key that
// matches "kind" (or another it needs) only case-insensitively, as
// encoding/json matches keys; a key twice (encoding/json keeps the last);
// escapes; values that are not plain strings; malformed JSON; an object
// that fails to unmarshal. That serializer then gives its own answer,
// error included.

// jsonObjectDecoder decodes an object of kind gvk itself. The wrapped
// serializer is apimachinery's non-strict JSON serializer, as
// serializer.CodecFactory makes it.
type jsonObjectDecoder struct {
	kruntime.Serializer
	gvk        *schema.GroupVersionKind
	apiVersion string
	elemType   reflect.Type
	// ownJSON: *elemType has UnmarshalJSON, which is called straight:
	// sigs.k8s.io/json would check the syntax of the whole object first,
	// then call it, and the decoders syncer-gen generates for projected
	// types check the syntax themselves as they read.
	ownJSON bool
	partial bool // PartialObjectMetadata counts as the decoder's kind
	// unstructured: elemType is unstructured.Unstructured, whose objects
	// and lists decodeObject and decodeList decode (unstructured.go).
	unstructured bool
}

func (d jsonObjectDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into kruntime.Object) (kruntime.Object, *schema.GroupVersionKind, error) {
	if l, ok := into.(*unstructured.UnstructuredList); ok && d.unstructured && l.Object == nil && l.Items == nil {
		if gvk, ok := decodeList(data, l); ok {
			return l, gvk, nil
		}
	}
	if into == nil && d.ownKind(data) {
		obj := reflect.New(d.elemType).Interface()
		if d.unstructured {
			if m, ok := decodeObject(data); ok {
				obj.(kruntime.Unstructured).SetUnstructuredContent(m)
				return obj.(kruntime.Object), d.gvk, nil
			}
		}
		// What the wrapped serializer calls for an object of a registered
		// kind. On an error it is asked again, for its own error.
		var err error
		if d.ownJSON {
			err = obj.(json.Unmarshaler).UnmarshalJSON(data)
		} else {
			err = kjson.UnmarshalCaseSensitivePreserveInts(data, obj)
		}
		if err == nil {
			// The kind returned is shared, as objectDecoder's is.
			return obj.(kruntime.Object), d.gvk, nil
		}
	}
	return d.Serializer.Decode(data, defaults, into)
}

// ownKind tells whether data is a JSON object whose apiVersion and kind
// are, for encoding/json too, exactly the decoder's (or, for partial,
// PartialObjectMetadata's).
func (d jsonObjectDecoder) ownKind(data []byte) bool {
	v, ok := members(data, [2]string{"apiVersion", "kind"})
	if !ok {
		return false
	}
	if plainString(v[0], d.apiVersion) && plainString(v[1], d.gvk.Kind) {
		return true
	}
	return d.partial && plainString(v[0], partialAPIVersion) && plainString(v[1], partialKind)
}

// members returns the values of the members of the JSON object data named
// names (nil for one that is missing). ok is false, and data is better left
// to encoding/json, when data is malformed, a key has escapes (no knowing
// what it unescapes to), one of names appears twice (encoding/json keeps
// the last), or a key matches one of names or refuse case-insensitively
// without being one of names exactly (encoding/json matches keys so).
func members(data []byte, names [2]string, refuse ...string) (values [2][]byte, ok bool) {
	ok = eachMember(data, func(key, value []byte, esc bool) bool {
		if esc {
			return false
		}
		for i, name := range names {
			if string(key) == name {
				if values[i] != nil {
					return false
				}
				values[i] = value
				return true
			}
		}
		for _, name := range names {
			if bytes.EqualFold(key, []byte(name)) {
				return false
			}
		}
		for _, name := range refuse {
			if bytes.EqualFold(key, []byte(name)) {
				return false
			}
		}
		return true
	})
	return values, ok
}

// jsonWatchEventDecoder decodes a metav1.WatchEvent frame without copying:
// as the wrapped serializer, it sets Type and Object.Raw from members
// "type" and "object" (matched case-sensitively, as sigs.k8s.io/json
// does), and leaves them as they are when the member is missing or, for
// the object, null.
type jsonWatchEventDecoder struct {
	kruntime.Serializer
	gvk *schema.GroupVersionKind // WatchEvent in the Syncer's group and version, as the scheme knows it
}

func (d jsonWatchEventDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into kruntime.Object) (kruntime.Object, *schema.GroupVersionKind, error) {
	ev, ok := into.(*metav1.WatchEvent)
	if !ok {
		return d.Serializer.Decode(data, defaults, into)
	}
	// An apiVersion or kind would make the wrapped serializer decode the
	// frame as another kind; a near-miss of type or object is ignored by
	// sigs.k8s.io/json but is too rare to be worth the risk.
	v, ok := members(data, [2]string{"type", "object"}, "apiVersion", "kind")
	typ, object := v[0], v[1]
	if !ok || typ != nil && !isPlainString(typ) {
		return d.Serializer.Decode(data, defaults, into)
	}
	if typ != nil {
		ev.Type = internEventType(typ[1 : len(typ)-1])
	}
	if object != nil && string(object) != "null" {
		ev.Object.Raw = object
	}
	// The kind the wrapped serializer returns, shared as objectDecoder's.
	return ev, d.gvk, nil
}

// plainString tells whether the JSON value v is the string s, without
// escapes.
func plainString(v []byte, s string) bool {
	return len(v) == len(s)+2 && v[0] == '"' && string(v[1:len(v)-1]) == s
}

// isPlainString tells whether the JSON value v is a string without escapes
// and in valid UTF-8, which encoding/json would not change.
func isPlainString(v []byte) bool {
	return len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v)
}

// maxJSONDepth is encoding/json's limit of nesting: deeper input is an
// error there too.
const maxJSONDepth = 10000

// eachMember calls f with each member of the JSON object data: the key
// without its quotes, whether it has escapes, and the value (sub-slices,
// not copies). It returns false when f does, or when data is not one
// well-formed JSON object, whitespace around it allowed, as encoding/json
// reads it: strings may hold any bytes but control characters, invalid
// UTF-8 included.
func eachMember(data []byte, f func(key, value []byte, esc bool) bool) bool {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		if i == len(data) || data[i] != '"' {
			return false
		}
		end, esc := scanString(data, i)
		if end < 0 {
			return false
		}
		key := data[i+1 : end-1]
		i = skipSpace(data, end)
		if i == len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		end = scanValue(data, i, 1)
		if end < 0 || !f(key, data[i:end], esc) {
			return false
		}
		i = skipSpace(data, end)
		if i == len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return skipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}

// skipSpace returns the index of the first byte of b from i on that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// scanValue returns the end of the JSON value that starts at b[i], at
// nesting depth depth, or -1 when it is malformed.
func scanValue(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		end, _ := scanString(b, i)
		return end
	case c == '{' || c == '[':
		if depth >= maxJSONDepth {
			return -1
		}
		return scanContainer(b, i, depth+1)
	case c == '-' || '0' <= c && c <= '9':
		return scanNumber(b, i)
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	}
	return -1
}

// scanContainer returns the end of the object or array that starts at
// b[i], or -1.
func scanContainer(b []byte, i, depth int) int {
	closing := byte(']')
	if b[i] == '{' {
		closing = '}'
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == closing {
		return i + 1
	}
	for {
		if closing == '}' {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i, _ = scanString(b, i); i < 0 {
				return -1
			}
			if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
		if i = scanValue(b, i, depth); i < 0 {
			return -1
		}
		if i = skipSpace(b, i); i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case closing:
			return i + 1
		default:
			return -1
		}
	}
}

// scanString returns the end of the string that starts at b[i] (after its
// closing quote) and whether it has escapes, or -1.
func scanString(b []byte, i int) (end int, esc bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc
		case c < 0x20:
			return -1, false
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return -1, false
			}
			i++
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1, false
				}
				for _, h := range b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return -1, false
					}
				}
				i += 4
			default:
				return -1, false
			}
		}
	}
	return -1, false
}

// scanNumber returns the end of the number that starts at b[i], or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if j := skipDigits(b, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

func scanLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

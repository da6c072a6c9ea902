package wire

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/syncer-gen/syncer-gen/runtime/internal/intern"
)

// The JSON decoder of unstructured objects. apimachinery's
// (unstructured.Unstructured's UnmarshalJSON, which client-go's dynamic
// client calls) decodes with sigs.k8s.io/json into a map[string]any: it
// checks the whole input's syntax, then decodes it, allocating each key
// and each string anew, and grows each list by appending. decodeObject
// gives the same values (the same maps, lists, strings, int64 and float64
// numbers, bools and nils; the last of keys given twice) from input that
// eachMember has checked already, with the keys and the string values that
// repeat from one object to the next shared through package intern, and
// each list made to its length. Where it is unsure (escapes or invalid
// UTF-8 in a string, deep nesting, a number that does not parse)
// it reads that part with sigs.k8s.io/json, or gives up: the caller then
// decodes the whole input as apimachinery does.

// maxDecodeDepth bounds decodeObject's recursion; deeper input is left to
// sigs.k8s.io/json.
const maxDecodeDepth = 100

// objectParser reads one JSON object; its elems are the elements of the
// lists being read, innermost last, reused from one object to the next.
type objectParser struct {
	data  []byte
	elems []any
}

var parsers = sync.Pool{New: func() any { return new(objectParser) }}

// decodeObject decodes data, a JSON object that eachMember accepted, as
// sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts decodes it into a
// map[string]any; ok is false where it gives up.
func decodeObject(data []byte) (m map[string]any, ok bool) {
	p := parsers.Get().(*objectParser)
	p.data = data
	i := skipSpace(data, 0)
	v, end, ok := p.value(i, nil, 0)
	p.data = nil
	clear(p.elems[:cap(p.elems)]) // nothing decoded stays reachable from the pool
	p.elems = p.elems[:0]
	parsers.Put(p)
	if !ok || skipSpace(data, end) != len(data) {
		return nil, false
	}
	m, ok = v.(map[string]any)
	return m, ok
}

// value reads the JSON value at data[i] under key k (nil: none, or not
// interned), and returns it and its end.
func (p *objectParser) value(i int, k *intern.Key, depth int) (v any, end int, ok bool) {
	b := p.data
	if i >= len(b) {
		return nil, 0, false
	}
	switch c := b[i]; {
	case c == '"':
		end, esc := scanString(b, i)
		if end < 0 {
			return nil, 0, false
		}
		if esc || !utf8.Valid(b[i+1:end-1]) {
			var s string // escapes and UTF-8 as encoding/json reads them
			if err := kjson.UnmarshalCaseSensitivePreserveInts(b[i:end], &s); err != nil {
				return nil, 0, false
			}
			return s, end, true
		}
		return k.Value(b[i+1 : end-1]), end, true
	case c == '{':
		if depth >= maxDecodeDepth {
			return nil, 0, false
		}
		return p.object(i, depth+1)
	case c == '[':
		if depth >= maxDecodeDepth {
			return nil, 0, false
		}
		return p.list(i, depth+1)
	case c == '-' || '0' <= c && c <= '9':
		end := scanNumber(b, i)
		if end < 0 {
			return nil, 0, false
		}
		n, ok := number(b[i:end])
		return n, end, ok
	case c == 't' && scanLiteral(b, i, "true") > 0:
		return true, i + 4, true
	case c == 'f' && scanLiteral(b, i, "false") > 0:
		return false, i + 5, true
	case c == 'n' && scanLiteral(b, i, "null") > 0:
		return nil, i + 4, true
	}
	return nil, 0, false
}

// object reads the JSON object at data[i].
func (p *objectParser) object(i, depth int) (any, int, bool) {
	b := p.data
	m := make(map[string]any)
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, 0, false
		}
		end, esc := scanString(b, i)
		if end < 0 {
			return nil, 0, false
		}
		var key string
		var k *intern.Key
		switch raw := b[i+1 : end-1]; {
		case esc || !utf8.Valid(raw):
			if err := kjson.UnmarshalCaseSensitivePreserveInts(b[i:end], &key); err != nil {
				return nil, 0, false
			}
		default:
			if k = intern.KeyOf(raw); k != nil {
				key = k.String()
			} else {
				key = string(raw)
			}
		}
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return nil, 0, false
		}
		v, end, ok := p.value(skipSpace(b, i+1), k, depth)
		if !ok {
			return nil, 0, false
		}
		m[key] = v
		if i = skipSpace(b, end); i >= len(b) {
			return nil, 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return m, i + 1, true
		default:
			return nil, 0, false
		}
	}
}

// list reads the JSON array at data[i], into a list of its length.
func (p *objectParser) list(i, depth int) (any, int, bool) {
	b := p.data
	base := len(p.elems)
	defer func() {
		clear(p.elems[base:])
		p.elems = p.elems[:base]
	}()
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return []any{}, i + 1, true
	}
	for {
		v, end, ok := p.value(i, nil, depth)
		if !ok {
			return nil, 0, false
		}
		p.elems = append(p.elems, v)
		if i = skipSpace(b, end); i >= len(b) {
			return nil, 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			l := make([]any, len(p.elems)-base)
			copy(l, p.elems[base:])
			return l, i + 1, true
		default:
			return nil, 0, false
		}
	}
}

// number converts a JSON number as sigs.k8s.io/json does with
// PreserveInts: an int64 when it has no '.' and fits, else a float64; ok
// is false where the float64 overflows (an error there).
func number(b []byte) (any, bool) {
	s := string(b) // small; the conversions need a string
	if !containsDot(b) {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func containsDot(b []byte) bool {
	for _, c := range b {
		if c == '.' {
			return true
		}
	}
	return false
}

// decodeList decodes data, a JSON list, into l, a new UnstructuredList, as
// apimachinery's unstructured decoder does (its decodeToList, then the
// JSON serializer's check of the kind): the list's members but items in
// l.Object, each item an Unstructured of its object (an empty one for
// null), given the list's apiVersion and its kind less "List" where it has
// neither; its objects decoded by decodeObject. ok is false, and l left
// alone, where decodeObject gives up or apimachinery would fail.
func decodeList(data []byte, l *unstructured.UnstructuredList) (gvk *schema.GroupVersionKind, ok bool) {
	if !eachMember(data, func(_, _ []byte, _ bool) bool { return true }) {
		return nil, false
	}
	m, ok := decodeObject(data)
	if !ok {
		return nil, false
	}
	var items []any
	switch v := m["items"].(type) {
	case nil:
	case []any:
		items = v
	default:
		return nil, false // not a list: an error there
	}
	delete(m, "items")
	out := unstructured.UnstructuredList{Object: m, Items: make([]unstructured.Unstructured, 0, len(items))}
	apiVersion, itemKind := out.GetAPIVersion(), strings.TrimSuffix(out.GetKind(), "List")
	for _, it := range items {
		var u unstructured.Unstructured
		switch o := it.(type) {
		case nil:
			u.Object = map[string]any{}
		case map[string]any:
			u.Object = o
		default:
			return nil, false // an item that is not an object: an error there
		}
		if len(u.GetKind()) == 0 && len(u.GetAPIVersion()) == 0 {
			u.SetKind(itemKind)
			u.SetAPIVersion(apiVersion)
		}
		out.Items = append(out.Items, u)
	}
	kind := out.GroupVersionKind()
	if len(kind.Kind) == 0 {
		return nil, false // an error there
	}
	*l = out
	return &kind, true
}

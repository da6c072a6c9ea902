package projectiontest

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// JSONVariants returns JSON documents made from the JSON value b, each
// changed in one way in every object and array: members in another
// order, unknown members added, member names with their letters escaped
// or capitalised (another member, for a case-sensitive decoder), string
// values escaped, some values made null, some objects and arrays emptied,
// whitespace everywhere. Decoders that agree on b must agree on each.
// It returns nil when b is not one valid JSON value.
func JSONVariants(b []byte, rnd *rand.Rand) [][]byte {
	root, err := parseJSON(jsontext.NewDecoder(bytes.NewReader(b)))
	if err != nil {
		return nil
	}
	styles := []jsonStyle{
		{reorder: true}, {unknown: true}, {escapeNames: true}, {capitalise: true},
		{escapeStrings: true}, {nulls: true}, {empties: true}, {space: " \n\t"},
	}
	var out [][]byte
	for _, s := range styles {
		s.rnd = rnd
		var buf bytes.Buffer
		s.write(&buf, root)
		out = append(out, buf.Bytes())
	}
	return out
}

// ListVariants returns JSON documents made from the JSON object b, a
// LIST page: its JSONVariants, and b with its "items", then its
// "metadata", given again at its end, written as each variant writes it
// (objects and lists emptied, values made null, members reordered) or as
// it is. sigs.k8s.io/json decodes a repeated member into what the first
// one made: the second "items" into the first's items, merging them (maps
// keep their keys, omitted fields stay set), which a projected list must
// decode to the same items. It returns nil when b is not a JSON object.
func ListVariants(b []byte, rnd *rand.Rand) [][]byte {
	root, err := parseJSON(jsontext.NewDecoder(bytes.NewReader(b)))
	if err != nil || root.kind != '{' {
		return nil
	}
	out := JSONVariants(b, rnd)
	for _, name := range []string{"items", "metadata"} {
		i := slices.Index(root.names, name)
		if i < 0 {
			continue
		}
		for _, again := range []jsonStyle{{}, {empties: true}, {nulls: true}, {reorder: true}} {
			again.rnd = rnd
			plain := jsonStyle{rnd: rnd}
			var buf bytes.Buffer
			buf.WriteByte('{')
			for j, n := range root.names {
				plain.name(&buf, n)
				buf.WriteByte(':')
				plain.write(&buf, root.members[j])
				buf.WriteByte(',')
			}
			plain.name(&buf, name)
			buf.WriteByte(':')
			again.write(&buf, root.members[i])
			buf.WriteByte('}')
			out = append(out, buf.Bytes())
		}
	}
	return out
}

// jsonNode is a JSON value: an object's members in order, an array's
// elements, or a scalar as written.
type jsonNode struct {
	kind    jsontext.Kind
	names   []string
	members []*jsonNode
	elems   []*jsonNode
	raw     []byte
}

func parseJSON(d *jsontext.Decoder) (*jsonNode, error) {
	switch k := d.PeekKind(); k {
	case '{', '[':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		n := &jsonNode{kind: k}
		for d.PeekKind() != k+2 { // '}' is '{'+2, ']' is '['+2
			if k == '{' {
				tok, err := d.ReadToken()
				if err != nil {
					return nil, err
				}
				n.names = append(n.names, tok.String())
			}
			v, err := parseJSON(d)
			if err != nil {
				return nil, err
			}
			if k == '{' {
				n.members = append(n.members, v)
			} else {
				n.elems = append(n.elems, v)
			}
		}
		_, err := d.ReadToken()
		return n, err
	}
	v, err := d.ReadValue()
	return &jsonNode{kind: v.Kind(), raw: bytes.Clone(v)}, err
}

// jsonStyle says how a variant writes a document.
type jsonStyle struct {
	rnd                              *rand.Rand
	reorder, unknown, escapeNames    bool
	capitalise, escapeStrings, nulls bool
	empties                          bool
	space                            string
}

var unknownValues = []string{`{"a":[1,2.5e3,{"b":null}],"c":"\u00e9"}`, `"s"`, `-0`, `true`, `null`, `[]`, `{}`}

func (s jsonStyle) ws(buf *bytes.Buffer) {
	if s.space != "" {
		buf.WriteByte(s.space[s.rnd.Intn(len(s.space))])
	}
}

func (s jsonStyle) write(buf *bytes.Buffer, n *jsonNode) {
	s.ws(buf)
	switch {
	case s.nulls && s.rnd.Intn(5) == 0:
		buf.WriteString("null")
	case n.kind == '{':
		buf.WriteByte('{')
		order := make([]int, len(n.members))
		for i := range order {
			order[i] = i
		}
		if s.reorder {
			s.rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		if s.empties && s.rnd.Intn(4) == 0 {
			order = nil
		}
		first := true
		comma := func() {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			s.ws(buf)
		}
		for _, i := range order {
			comma()
			s.name(buf, n.names[i])
			s.ws(buf)
			buf.WriteByte(':')
			s.write(buf, n.members[i])
		}
		if s.unknown {
			comma()
			fmt.Fprintf(buf, "%q:%s", fmt.Sprintf("zz%d", s.rnd.Intn(100)), unknownValues[s.rnd.Intn(len(unknownValues))])
		}
		s.ws(buf)
		buf.WriteByte('}')
	case n.kind == '[':
		buf.WriteByte('[')
		elems := n.elems
		if s.empties && s.rnd.Intn(4) == 0 {
			elems = nil
		}
		for i, e := range elems {
			if i > 0 {
				buf.WriteByte(',')
			}
			s.write(buf, e)
		}
		s.ws(buf)
		buf.WriteByte(']')
	case n.kind == '"' && s.escapeStrings:
		buf.Write(escapeASCII(n.raw))
	default:
		buf.Write(n.raw)
	}
	s.ws(buf)
}

// name writes a member name: escaped, capitalised, or as it is.
func (s jsonStyle) name(buf *bytes.Buffer, name string) {
	quoted, _ := jsontext.AppendQuote(nil, name)
	switch {
	case s.escapeNames:
		buf.Write(escapeASCII(quoted))
	case s.capitalise && name != "" && s.rnd.Intn(3) == 0:
		q, _ := jsontext.AppendQuote(nil, strings.ToUpper(name[:1])+name[1:])
		buf.Write(q)
	default:
		buf.Write(quoted)
	}
}

// escapeASCII writes the letters and digits of a quoted JSON string as
// \u escapes, and "/" as "\/".
func escapeASCII(quoted []byte) []byte {
	var out []byte
	verbatim := 0 // bytes of an escape still to copy
	for i, c := range quoted {
		switch {
		case i == 0 || i == len(quoted)-1:
			out = append(out, c)
		case verbatim > 0:
			out = append(out, c)
			verbatim--
			if c == 'u' && verbatim == 0 {
				verbatim = 4
			}
		case c == '\\':
			out = append(out, c)
			verbatim = 1
		case c == '/':
			out = append(out, '\\', '/')
		case c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'):
			out = fmt.Appendf(out, `\u%04x`, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

package generators

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"
	"unicode"
)

// segment is one ".name", ".name[key]" or ".name[*]" of a field path, and
// where it starts in the path text.
type segment struct {
	name   string
	key    string
	hasKey bool
	filter *filter // [?(...)]: the elements of a list that pass it
	each   bool    // [*]: every element of the list name is
	offset int
}

// parseFieldPath parses a field path in the JSON names of an API type:
// ".spec.nodeName", ".metadata.labels[app]",
// ".metadata.labels['app.kubernetes.io/name']", ".spec.containers[*].image".
// A segment through a slice reaches every element, [*] or not, or those a
// filter keeps (see filter.go). It returns the offset in path of any error.
func parseFieldPath(path string) ([]segment, int, error) {
	var segs []segment
	i := 0
	for i < len(path) {
		if path[i] != '.' {
			return nil, i, fmt.Errorf("expected \".\" at %q; a field path is .field.field... in JSON names, e.g. .spec.nodeName", path[i:])
		}
		i++
		start := i
		for i < len(path) && isNameChar(rune(path[i]), i == start) {
			i++
		}
		if i == start {
			return nil, start, fmt.Errorf("expected a field name after \".\"")
		}
		seg := segment{name: path[start:i], offset: start - 1}
		if strings.HasPrefix(path[i:], "[*]") {
			seg.each = true
			i += len("[*]")
		} else if i < len(path) && path[i] == '[' {
			if strings.HasPrefix(path[i:], "[?") {
				f, next, err := parseFilter(path, i)
				if err != nil {
					return nil, next, err
				}
				seg.filter, i = f, next
				segs = append(segs, seg)
				continue
			}
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				return nil, i, fmt.Errorf("unclosed \"[\"; expected [key], e.g. .metadata.labels[app]")
			}
			key := path[i+1 : i+end]
			if len(key) >= 2 && (key[0] == '\'' || key[0] == '"') && key[len(key)-1] == key[0] {
				key = key[1 : len(key)-1]
			}
			if key == "" {
				return nil, i, fmt.Errorf("empty map key; expected [key], e.g. .metadata.labels[app]")
			}
			seg.key, seg.hasKey = key, true
			i += end + 1
		}
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return nil, 0, fmt.Errorf("empty field path; expected e.g. .spec.nodeName")
	}
	return segs, 0, nil
}

func isNameChar(r rune, first bool) bool {
	return r == '_' || unicode.IsLetter(r) || (!first && unicode.IsDigit(r))
}

// resolveFieldPath walks path through the Go type t (the API struct) and
// returns the steps that reach the indexed values and how to format them.
// Errors are placed at pos, the start of path in the source.
func resolveFieldPath(t types.Type, path string, pos token.Position, marker string) ([]Step, Format, bool, *Error) {
	segs, off, err := parseFieldPath(path)
	if err != nil {
		return nil, 0, false, errorf(at(pos, off), ErrorTypeInvalid, marker, "%v", err)
	}
	var steps []Step
	cur := t
	for i, seg := range segs {
		cur = through(cur, &steps) // to the struct that has the field
		st, ok := cur.Underlying().(*types.Struct)
		if !ok {
			return nil, 0, false, errorf(at(pos, seg.offset), ErrorTypeNotFound, marker,
				"%s: %s has no fields; the path must end at a string, bool or integer", pathUpTo(segs, i+1), cur)
		}
		jf, found := jsonFieldByName(st, seg.name)
		if !found {
			return nil, 0, false, errorf(at(pos, seg.offset), ErrorTypeNotFound, marker,
				"%s: no field %q in %s; %s", pathUpTo(segs, i+1), seg.name, typeName(cur), notFound(st, seg.name))
		}
		fieldSteps, ft, err := selectSteps(cur, st, jf.chain)
		if err != nil {
			return nil, 0, false, errorf(at(pos, seg.offset), ErrorTypeNotSupported, marker, "%s: %v", pathUpTo(segs, i+1), err)
		}
		steps = append(steps, fieldSteps...)
		cur = ft
		if seg.each && !isList(cur) {
			return nil, 0, false, errorf(at(pos, seg.offset), ErrorTypeInvalid, marker,
				"%s: [*] needs a list, and %s is a %s", pathUpTo(segs, i+1), seg.name, typeName(cur))
		}
		if seg.filter != nil {
			var e *Error
			if cur, e = resolveFilter(cur, seg, pathUpTo(segs, i+1), &steps, pos, marker); e != nil {
				return nil, 0, false, e
			}
			continue
		}
		if seg.hasKey {
			for {
				p, isPtr := cur.Underlying().(*types.Pointer)
				if !isPtr {
					break
				}
				steps = append(steps, Step{Kind: StepPointer})
				cur = p.Elem()
			}
			m, isMap := cur.Underlying().(*types.Map)
			if !isMap || !isString(m.Key()) {
				return nil, 0, false, errorf(at(pos, seg.offset), ErrorTypeInvalid, marker,
					"%s: [%s] needs a map with string keys, and %s is a %s", pathUpTo(segs, i+1), seg.key, seg.name, cur)
			}
			steps = append(steps, Step{Kind: StepKey, Key: seg.key})
			cur = m.Elem()
		}
	}
	cur = through(cur, &steps) // to the value
	bytes := len(steps) > 0 && steps[len(steps)-1].Kind == StepEach && types.Identical(cur, types.Typ[types.Byte])
	if basic, ok := cur.Underlying().(*types.Basic); ok && !bytes {
		_, named := types.Unalias(cur).(*types.Named)
		info := basic.Info()
		switch {
		case info&types.IsString != 0:
			return steps, FormatString, named, nil
		case info&types.IsBoolean != 0:
			return steps, FormatBool, named, nil
		case info&types.IsInteger != 0 && info&types.IsUnsigned != 0:
			return steps, FormatUint, named, nil
		case info&types.IsInteger != 0:
			return steps, FormatInt, named, nil
		}
	}
	what := typeName(cur)
	if bytes {
		what = "[]byte"
	}
	hint := "an index needs a string, bool or integer, or a slice or pointer of them"
	if _, isMap := cur.Underlying().(*types.Map); isMap {
		hint = fmt.Sprintf("an index needs one value of a map: name its key, e.g. %s[key]", path)
	}
	return nil, 0, false, errorf(at(pos, segs[len(segs)-1].offset), ErrorTypeInvalid, marker, "%s is a %s; %s", path, what, hint)
}

// through goes through the pointers and slices of t, adding a step for
// each, and returns the type they lead to.
func through(t types.Type, steps *[]Step) types.Type {
	for {
		switch u := t.Underlying().(type) {
		case *types.Pointer:
			*steps = append(*steps, Step{Kind: StepPointer})
			t = u.Elem()
		case *types.Slice:
			*steps = append(*steps, Step{Kind: StepEach})
			t = u.Elem()
		default:
			return t
		}
	}
}

// isList tells whether t is a slice, or a pointer to one.
func isList(t types.Type) bool {
	for {
		switch u := t.Underlying().(type) {
		case *types.Pointer:
			t = u.Elem()
		case *types.Slice:
			return true
		default:
			return false
		}
	}
}

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

func pathUpTo(segs []segment, n int) string {
	var b strings.Builder
	for _, s := range segs[:n] {
		b.WriteString(".")
		b.WriteString(s.name)
		if s.filter != nil {
			b.WriteString(s.filter.text)
		}
		if s.hasKey {
			b.WriteString("[" + s.key + "]")
		}
		if s.each {
			b.WriteString("[*]")
		}
	}
	return b.String()
}

// typeName returns t qualified by its package name only, e.g. v1.PodSpec.
func typeName(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// closest returns the name in names nearest to s, when one is within two
// edits (or differs only in case), else "".
func closest(s string, names []string) string {
	best, bestDist := "", 3
	for _, n := range names {
		if strings.EqualFold(n, s) {
			return n
		}
		if d := editDistance(strings.ToLower(s), strings.ToLower(n)); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

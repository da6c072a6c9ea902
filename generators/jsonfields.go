package generators

import (
	"cmp"
	"fmt"
	"go/types"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// jsonField is a field that encoding/json decodes a member of a struct's
// JSON object into: its member name, and the field indexes from the struct
// down, through the embedded structs whose fields JSON inlines.
type jsonField struct {
	name   string
	chain  []int
	tagged bool
}

// jsonFields returns the fields of st that encoding/json (and
// sigs.k8s.io/json, a copy of it, which apimachinery decodes with) fills,
// by member name, found as its typeFields finds them: the exported fields,
// and those of the embedded structs without a JSON name, exported or not,
// breadth first, each embedded type once. A name goes to the shallowest
// field that has it, at one depth to the one whose tag names it over the
// others, and to no field when two tie. Index, filter and keep paths all
// resolve their names here, so that each names the field the decoder fills.
func jsonFields(st *types.Struct) map[string]jsonField {
	type level struct {
		st    *types.Struct
		typ   types.Type // the embedded type, nil for st
		chain []int
	}
	var all []jsonField
	cur := []level{{st: st}}
	count := map[types.Type]int{}
	visited := map[types.Type]bool{}
	for len(cur) > 0 { // a level per depth; each embedded type is visited once
		var next []level
		nextCount := map[types.Type]int{}
		for _, l := range cur {
			if l.typ != nil {
				if visited[l.typ] {
					continue
				}
				visited[l.typ] = true
			}
			for i := range l.st.NumFields() {
				f := l.st.Field(i)
				ft := types.Unalias(f.Type())
				if p, ok := ft.(*types.Pointer); ok {
					ft = types.Unalias(p.Elem()) // encoding/json follows an unnamed pointer
				}
				if f.Embedded() {
					if !f.Exported() && !isStructType(ft) {
						continue // an embedded field of an unexported type that is not a struct
					}
				} else if !f.Exported() {
					continue
				}
				name, inline, skip := jsonTagName(f, l.st.Tag(i))
				if skip {
					continue
				}
				chain := append(slices.Clip(l.chain), i)
				if !inline {
					jf := jsonField{name: name, chain: chain, tagged: hasJSONName(l.st.Tag(i))}
					all = append(all, jf)
					if count[l.typ] > 1 {
						all = append(all, jf) // the type is embedded twice at this depth: a tie
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					inner, _ := ft.Underlying().(*types.Struct)
					next = append(next, level{st: inner, typ: ft, chain: chain})
				}
			}
		}
		cur, count = next, nextCount
	}
	slices.SortStableFunc(all, func(x, y jsonField) int {
		return cmp.Or(strings.Compare(x.name, y.name), cmp.Compare(len(x.chain), len(y.chain)),
			-cmp.Compare(boolInt(x.tagged), boolInt(y.tagged)), slices.Compare(x.chain, y.chain))
	})
	out := map[string]jsonField{}
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		if j-i == 1 || len(all[i].chain) < len(all[i+1].chain) || all[i].tagged && !all[i+1].tagged {
			out[all[i].name] = all[i]
		}
		i = j
	}
	return out
}

// jsonFieldByName returns the field of st that encoding/json fills with
// the member name, and whether there is one.
func jsonFieldByName(st *types.Struct, name string) (jsonField, bool) {
	f, ok := jsonFields(st)[name]
	return f, ok
}

// jsonFieldNames returns the member names encoding/json fills fields of st with, sorted.
func jsonFieldNames(st *types.Struct) []string {
	var out []string
	for n := range jsonFields(st) {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// notFound is the detail of an error for a name no field of st has: what
// is there, or the nearest name.
func notFound(st *types.Struct, name string) string {
	names := jsonFieldNames(st)
	if near := closest(name, names); near != "" {
		return fmt.Sprintf("did you mean %q?", near)
	}
	return "expected one of: " + strings.Join(names, ", ")
}

// jsonTagName returns the JSON name of a field as encoding/json reads its
// tag (the Go name when the tag names none, or names an invalid one),
// whether it is an embedded struct whose fields are inlined, and whether
// the tag leaves the field out ("-").
func jsonTagName(f *types.Var, tag string) (name string, inline, skip bool) {
	v := reflect.StructTag(tag).Get("json")
	if v == "-" {
		return "", false, true
	}
	name, _, _ = strings.Cut(v, ",")
	if !validJSONName(name) {
		name = ""
	}
	ft := types.Unalias(f.Type())
	if p, ok := ft.(*types.Pointer); ok {
		ft = types.Unalias(p.Elem())
	}
	if name == "" && f.Embedded() && isStructType(ft) {
		return "", true, false
	}
	if name == "" {
		name = f.Name()
	}
	return name, false, false
}

// hasJSONName tells whether a field's tag names its JSON member.
func hasJSONName(tag string) bool {
	n, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
	return validJSONName(n)
}

// validJSONName is encoding/json's isValidTag.
func validJSONName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// jsonName returns the JSON member name of a field, "" for one inlined or left out.
func jsonName(f *types.Var, tag string) string {
	n, inline, skip := jsonTagName(f, tag)
	if inline || skip {
		return ""
	}
	return n
}

func isStructType(t types.Type) bool {
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

// fieldAt returns the field at chain from st, through embedded structs
// (and pointers to them), with its tag.
func fieldAt(st *types.Struct, chain []int) (*types.Var, string) {
	for _, i := range chain[:len(chain)-1] {
		st = derefAll(st.Field(i).Type()).Underlying().(*types.Struct)
	}
	i := chain[len(chain)-1]
	return st.Field(i), st.Tag(i)
}

// promoted checks that Go selects the field at chain of the struct type t
// by its name alone: a field reached through unexported embedded structs,
// which code outside their package cannot name, is selected so, by
// promotion. It returns why not, for a field Go's promotion hides (a
// shallower field of that Go name) or makes ambiguous.
func promoted(t types.Type, st *types.Struct, chain []int) error {
	f, _ := fieldAt(st, chain)
	obj, index, _ := types.LookupFieldOrMethod(t, false, f.Pkg(), f.Name())
	if obj != types.Object(f) || !slices.Equal(index, chain) {
		return fmt.Errorf("it is reached through an unexported embedded struct, which code outside %s cannot name, and %s selects another field (or none) in Go", f.Pkg().Path(), f.Name())
	}
	return nil
}

// selectSteps returns the Go steps that select the field at chain from a
// value of t, a struct type whose underlying struct is st: each embedded
// field on the way by name (and through its pointer), and those of
// unexported embedded structs, which code outside their package cannot
// name, by the promotion of the next exported field.
func selectSteps(t types.Type, st *types.Struct, chain []int) ([]Step, types.Type, error) {
	var steps []Step
	base, cur := t, st
	var pending []int // unexported embedded structs since base
	for k, i := range chain {
		f := cur.Field(i)
		pending = append(pending, i)
		ft := types.Unalias(f.Type())
		p, isPtr := ft.(*types.Pointer)
		if !f.Exported() && k == len(chain)-1 {
			return nil, nil, fmt.Errorf("it is the unexported embedded field %s, which code outside %s cannot name", f.Name(), f.Pkg().Path())
		}
		if f.Exported() {
			if len(pending) > 1 {
				if err := promoted(base, base.Underlying().(*types.Struct), pending); err != nil {
					return nil, nil, err
				}
			}
			steps = append(steps, Step{Kind: StepField, GoName: f.Name()})
			pending = nil
			if k == len(chain)-1 {
				return steps, f.Type(), nil
			}
			if isPtr {
				steps = append(steps, Step{Kind: StepPointer})
				ft = types.Unalias(p.Elem())
			}
			base = ft
		} else if isPtr {
			return nil, nil, fmt.Errorf("it is reached through the embedded pointer %s, which code outside %s cannot test for nil", typeName(ft), f.Pkg().Path())
		}
		cur = derefAll(ft).Underlying().(*types.Struct)
	}
	panic("generators: empty field chain")
}

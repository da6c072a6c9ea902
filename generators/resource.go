package generators

import (
	"cmp"
	"go/ast"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"
)

// versionPattern is what the last element of an API package path must look like.
var versionPattern = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)

// resourcePattern is what a plural resource name must look like.
var resourcePattern = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

var pluralNamer = namer.NewAllLowercasePluralNamer(map[string]string{"Endpoints": "Endpoints"})

// defaultResourceName is the resource name client-gen gives a kind
// without a marker that states it: its lowercase plural.
func defaultResourceName(kind string) string {
	return pluralNamer.Name(&gengotypes.Type{Name: gengotypes.Name{Name: kind}})
}

// maxTypeHops bounds the aliases and defined types followed to a struct.
const maxTypeHops = 8

// resource returns the Resource of s, and its indexes' markers.
func (b *builder) resource(s *selection) (*Resource, map[*Index]marker) {
	where, by := s.pos, s.by
	td := b.lookupType(s)
	if td == nil {
		return nil, nil
	}
	name := s.target.path + "." + s.name
	if td.spec.TypeParams != nil || !b.overStruct(s.target, td, by) {
		b.fail(errorf(where, ErrorTypeNotSupported, by, "%s is not a struct type, nor a type defined over one", name))
		return nil, nil
	}
	lines := commentLines(s.target.fset, typeComments(s.target.fset, td.file, td.decl, td.spec)...)
	up := readUpstream(lines)
	if up.genclient && !up.canListWatch() {
		b.fail(errorf(where, ErrorTypeNotSupported, by, "%s has no list and watch verbs (+genclient:noVerbs, onlyVerbs or skipVerbs): it cannot be synced", name))
		return nil, nil
	}
	list, errs := s.target.lookup(s.name + "List")
	b.failAll(errs)
	if list == nil {
		b.fail(errorf(where, ErrorTypeRequired, by, "no type %sList in %s: a syncer needs the list type to read LIST pages", s.name, s.target.path))
		return nil, nil
	}
	group, ok, errs := s.target.groupName()
	b.failAll(errs)
	if !ok {
		b.fail(errorf(where, ErrorTypeRequired, by, "package %s has no +groupName marker, GroupName constant nor GroupVersion variable; add // +groupName=<group> to its doc.go (empty for the core group)", s.target.path))
		return nil, nil
	}
	version := path.Base(s.target.path)
	if !versionPattern.MatchString(version) {
		b.fail(errorf(where, ErrorTypeInvalid, by, "package %s does not end in an API version such as v1 or v1beta2", s.target.path))
		return nil, nil
	}
	namespaced, errs := scopeOf(up, s.ms)
	b.failAll(errs)
	resourceName, errs := resourceNameOf(s.name, up, s.ms)
	b.failAll(errs)
	r := &Resource{
		Kind: s.name, Name: s.name, ListKind: s.name + "List", TypePkg: s.target.path,
		Group: group, Version: version,
		Resource:           resourceName,
		Namespaced:         namespaced,
		StripManagedFields: s.strip,
		SelectedIn:         s.declPkg.path,
		Pos:                where,
		groupGoName:        s.target.groupGoName(),
	}
	if m := s.ms.strip; m != nil {
		r.StripManagedFields = m.boolValue()
	}
	if p := s.projection(); p != "" {
		r.Name = p
	}
	pending := b.indexes(r, s.ms.indexes)
	return r, pending
}

// lookupType returns the declaration of s's type, following aliases in
// the API packages (s is moved to the type they stand for), or nil after
// reporting why there is none.
func (b *builder) lookupType(s *selection) *typeDecl {
	for range maxTypeHops {
		td, errs := s.target.lookup(s.name)
		b.failAll(errs)
		if td == nil {
			detail := "no type " + s.target.path + "." + s.name
			if near := closest(s.name, exportedTypes(s.target)); near != "" {
				detail += "; did you mean " + s.target.path + "." + near + "?"
			}
			b.fail(errorf(s.pos, ErrorTypeNotFound, s.by, "%s", detail))
			return nil
		}
		if td.spec.Assign == token.NoPos {
			return td
		}
		if !b.followAlias(s, s.target, td) {
			return nil
		}
	}
	b.fail(errorf(s.pos, ErrorTypeNotSupported, s.by, "more than %d aliases lead from %s", maxTypeHops, s.declName))
	return nil
}

// exportedTypes returns the names of p's exported types, for suggestions.
func exportedTypes(p *pkg) []string {
	var out []string
	for n := range p.types {
		if token.IsExported(n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// overStruct tells whether td, declared in p, is a struct type or a type
// defined over one, such as gateway-api's "type Gateway v1.Gateway".
func (b *builder) overStruct(p *pkg, td *typeDecl, by string) bool {
	for range maxTypeHops {
		if _, ok := td.spec.Type.(*ast.StructType); ok {
			return true
		}
		next, name, ok := b.typeRef(p, td, by)
		if !ok {
			return false
		}
		var errs ErrorList
		td, errs = next.lookup(name)
		b.failAll(errs)
		if td == nil {
			return false
		}
		p = next
	}
	return false
}

// indexes turns the index markers into the resource's Indexes, whose
// field paths are walked later, and returns their markers.
func (b *builder) indexes(r *Resource, ms []marker) map[*Index]marker {
	seen := map[string]*Index{}
	pending := map[*Index]marker{}
	for _, m := range ms {
		ix := &Index{Name: m.arg, Path: m.value, Pos: m.pos}
		namePos := m.argPos
		if ix.Name == "" {
			ix.Name, namePos = defaultIndexName(m.value), m.valuePos
		}
		if !token.IsIdentifier(ix.Name) {
			b.fail(errorf(namePos, ErrorTypeInvalid, m.name(), "index name %q is not a Go identifier; give one as index(<name>)=<path>", ix.Name))
			continue
		}
		ix.Method = "By" + upperFirst(ix.Name)
		if prev, dup := seen[ix.Method]; dup {
			b.fail(errorf(namePos, ErrorTypeDuplicate, m.name(), "index %q is already declared at %s", ix.Name, prev.Pos))
			continue
		}
		seen[ix.Method] = ix
		pending[ix] = m
		r.Indexes = append(r.Indexes, ix)
	}
	slices.SortFunc(r.Indexes, func(x, y *Index) int { return cmp.Compare(x.Name, y.Name) })
	return pending
}

// defaultIndexName names an index after the last segment of its path, or
// its map key: ".spec.nodeName" is "nodeName", ".metadata.labels[app]" is "app".
func defaultIndexName(fieldPath string) string {
	segs, _, err := parseFieldPath(fieldPath)
	if err != nil {
		return ""
	}
	last := segs[len(segs)-1]
	if !last.hasKey {
		return last.name
	}
	var b strings.Builder
	up := false
	for _, r := range last.key {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			up = b.Len() > 0
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		case b.Len() == 0 && unicode.IsDigit(r):
			b.WriteString("_")
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

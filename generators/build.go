package generators

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/tools/go/packages"
	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"
)

// Config says what one run generates.
type Config struct {
	// Patterns are the package patterns whose markers select types.
	Patterns []string
	// Types selects types without markers, each as "importpath.Name", for
	// packages one cannot annotate, e.g. "k8s.io/api/core/v1.Pod".
	Types []string
	// AllGenclient selects every +genclient type with list and watch verbs
	// of the Patterns' packages, as a +syncer-gen on each package would.
	AllGenclient bool
	// OutputPkg is the Go import path of the output folder.
	OutputPkg string
	// Dir is the working directory of the go command; "" for the current one.
	Dir string
}

// Build loads the packages of cfg, reads their markers and returns the
// model to render. Every problem found is returned at once, as an
// ErrorList sorted by position.
func Build(cfg Config) (*Model, error) {
	b := &builder{cfg: cfg, ld: newLoader(cfg.Dir), sel: map[string]*selection{}}
	b.selectFromMarkers()
	b.selectFromFlags()
	resources := b.resolve()
	m := b.model(resources)
	if len(b.errs) > 0 {
		slices.SortStableFunc(b.errs, func(x, y *Error) int {
			return cmp.Or(cmp.Compare(x.Pos.Filename, y.Pos.Filename), cmp.Compare(x.Pos.Line, y.Pos.Line), cmp.Compare(x.Pos.Column, y.Pos.Column))
		})
		return nil, b.errs
	}
	return m, nil
}

type builder struct {
	cfg  Config
	ld   *loader
	errs ErrorList
	sel  map[string]*selection // by target import path + "." + type name
}

// selection is a type chosen for a syncer, and where and how it was chosen.
type selection struct {
	target   *pkg   // the package that declares the API type
	name     string // the API type's name in target
	declPkg  *pkg   // the package whose markers chose it (an alias's package, for an alias)
	declName string // the type's (or alias's) name in declPkg
	ms       markers
	strip    bool // +syncer-gen:stripManagedFields on declPkg
	explicit bool // chosen by a marker on the type itself, not in bulk
	pos      token.Position
}

func (b *builder) fail(e *Error)        { b.errs = append(b.errs, e) }
func (b *builder) failAll(es ErrorList) { b.errs = append(b.errs, es...) }

// add records s, letting a type's own markers win over a bulk selection.
func (b *builder) add(s *selection) {
	k := s.target.path + "." + s.name
	old, ok := b.sel[k]
	switch {
	case !ok, !old.explicit && s.explicit:
		b.sel[k] = s
	case old.explicit && s.explicit:
		b.fail(errorf(s.pos, ErrorTypeDuplicate, "+"+markerName, "%s.%s is already selected at %s", s.target.path, s.name, old.pos))
	}
}

// selectFromMarkers reads the markers of the Patterns' packages.
func (b *builder) selectFromMarkers() {
	if len(b.cfg.Patterns) == 0 {
		return
	}
	pkgs, errs := b.ld.load(b.cfg.Patterns)
	b.failAll(errs)
	for _, p := range pkgs {
		pms := readMarkers(p.packageLines(), onPackage, &b.errs)
		bulk := b.cfg.AllGenclient || (pms.selected != nil && pms.selected.boolValue())
		strip := pms.strip != nil && pms.strip.boolValue()
		for _, name := range sortedTypes(p) {
			td := p.types[name]
			lines := commentLines(p.fset, typeComments(p.fset, td.file, td.decl, td.spec)...)
			ms := readMarkers(lines, onType, &b.errs)
			gc := readGenclient(lines)
			s := &selection{target: p, name: name, declPkg: p, declName: name, ms: ms, strip: strip, pos: ms.pos}
			switch {
			case ms.selected != nil && !ms.selected.boolValue():
				continue // +syncer-gen=false
			case ms.foundMarkers && (ms.selected != nil || bulk):
				s.explicit = true
			case ms.foundMarkers:
				b.fail(errorf(ms.pos, ErrorTypeRequired, "+"+markerName, "%s has +%s options but is not selected; add +%s to the type or its package", name, markerName, markerName))
				continue
			case bulk && td.spec.Assign == token.NoPos && gc.genclient:
				if !gc.canListWatch() {
					continue // +genclient types without list and watch cannot be synced
				}
				s.pos = p.fset.Position(td.spec.Name.Pos())
			default:
				continue
			}
			if td.spec.Assign != token.NoPos {
				if !b.followAlias(s, td) {
					continue
				}
			}
			b.add(s)
		}
	}
}

// sortedTypes returns the names of p's parsed types in source order.
func sortedTypes(p *pkg) []string {
	names := make([]string, 0, len(p.types))
	for n := range p.types {
		names = append(names, n)
	}
	slices.SortFunc(names, func(x, y string) int {
		a, b := p.fset.Position(p.types[x].spec.Pos()), p.fset.Position(p.types[y].spec.Pos())
		return cmp.Or(cmp.Compare(a.Filename, b.Filename), cmp.Compare(a.Offset, b.Offset))
	})
	return names
}

// followAlias points s at the type an alias such as "type Pod = corev1.Pod"
// stands for, so that types one cannot annotate can be given markers.
func (b *builder) followAlias(s *selection, td *typeDecl) bool {
	marker := "+" + markerName
	sel, ok := td.spec.Type.(*ast.SelectorExpr)
	var x *ast.Ident
	if ok {
		x, ok = sel.X.(*ast.Ident)
	}
	if !ok {
		b.fail(errorf(s.declPkg.fset.Position(td.spec.Type.Pos()), ErrorTypeNotSupported, marker,
			"an alias must name an API type of another package, e.g. type Pod = corev1.Pod"))
		return false
	}
	importPath, err := b.importPathOf(s.declPkg, td.file, x.Name)
	if err != nil {
		b.fail(errorf(s.declPkg.fset.Position(x.Pos()), ErrorTypeNotFound, marker, "%v", err))
		return false
	}
	pkgs, errs := b.ld.load([]string{importPath})
	b.failAll(errs)
	if len(pkgs) != 1 {
		return false
	}
	s.target, s.name = pkgs[0], sel.Sel.Name
	return true
}

// importPathOf returns the import path that the name x refers to in file f.
func (b *builder) importPathOf(p *pkg, f *ast.File, x string) (string, error) {
	var unnamed []string
	for _, im := range f.Imports {
		ip := strings.Trim(im.Path.Value, `"`)
		if im.Name != nil {
			if im.Name.Name == x {
				return ip, nil
			}
			continue
		}
		unnamed = append(unnamed, ip)
	}
	// An import without a name is known by its package's name, which is
	// usually, but not always, the last element of its path.
	for _, ip := range unnamed {
		if path.Base(ip) == x {
			return ip, nil
		}
	}
	if len(unnamed) > 0 {
		list, err := packages.Load(&packages.Config{Mode: packages.NeedName, Dir: b.cfg.Dir}, unnamed...)
		if err == nil {
			for _, lp := range list {
				if lp.Name == x {
					return lp.PkgPath, nil
				}
			}
		}
	}
	return "", fmt.Errorf("no import named %s in %s", x, p.fset.Position(f.Package).Filename)
}

// selectFromFlags selects the Types of cfg.
func (b *builder) selectFromFlags() {
	for _, t := range b.cfg.Types {
		i := strings.LastIndexByte(t, '.')
		if i <= 0 || i == len(t)-1 || strings.HasSuffix(t[:i], "/") {
			b.fail(&Error{Type: ErrorTypeInvalid, Marker: "--type", Detail: fmt.Sprintf("%q: expected <import path>.<Type>, e.g. k8s.io/api/core/v1.Pod", t)})
			continue
		}
		pkgs, errs := b.ld.load([]string{t[:i]})
		b.failAll(errs)
		if len(pkgs) != 1 {
			continue
		}
		p, name := pkgs[0], t[i+1:]
		b.add(&selection{target: p, name: name, declPkg: p, declName: name})
	}
}

// resolve checks every selection against its API package and turns it into a Resource.
func (b *builder) resolve() []*Resource {
	keys := make([]string, 0, len(b.sel))
	for k := range b.sel {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []*Resource
	var todo []pendingIndexes
	for _, k := range keys {
		s := b.sel[k]
		if r, pending := b.resource(s); r != nil {
			out = append(out, r)
			if len(pending) > 0 {
				todo = append(todo, pendingIndexes{r, s, pending})
			}
		}
	}
	b.resolveIndexes(todo)
	return out
}

// versionPattern is what the last element of an API package path must look like.
var versionPattern = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)

// resourcePattern is what a plural resource name must look like.
var resourcePattern = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

var pluralNamer = namer.NewAllLowercasePluralNamer(map[string]string{"Endpoints": "Endpoints"})

// pendingIndexes are the indexes of a resource whose field paths are yet
// to be walked through the type, and the markers that declared them.
type pendingIndexes struct {
	r       *Resource
	s       *selection
	markers map[*Index]marker
}

// resource returns the Resource of s, and its indexes' markers.
func (b *builder) resource(s *selection) (*Resource, map[*Index]marker) {
	where := s.pos
	flag := where.Filename == ""
	name := s.target.path + "." + s.name
	by := "+" + markerName
	if flag {
		by = "--type"
	}
	td, errs := s.target.lookup(s.name)
	b.failAll(errs)
	if td == nil {
		b.fail(errorf(where, ErrorTypeNotFound, by, "no type %s", name))
		return nil, nil
	}
	if _, ok := td.spec.Type.(*ast.StructType); !ok || td.spec.Assign != token.NoPos || td.spec.TypeParams != nil {
		b.fail(errorf(where, ErrorTypeNotSupported, by, "%s is not a struct type", name))
		return nil, nil
	}
	lines := commentLines(s.target.fset, typeComments(s.target.fset, td.file, td.decl, td.spec)...)
	gc := readGenclient(lines)
	if gc.genclient && !gc.canListWatch() {
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
		b.fail(errorf(where, ErrorTypeRequired, by, "package %s has no +groupName marker nor GroupName constant; add // +groupName=<group> to its doc.go (empty for the core group)", s.target.path))
		return nil, nil
	}
	version := path.Base(s.target.path)
	if !versionPattern.MatchString(version) {
		b.fail(errorf(where, ErrorTypeInvalid, by, "package %s does not end in an API version such as v1 or v1beta2", s.target.path))
		return nil, nil
	}
	r := &Resource{
		Kind: s.name, ListKind: s.name + "List", TypePkg: s.target.path,
		Group: group, Version: version,
		Resource:           pluralNamer.Name(&gengotypes.Type{Name: gengotypes.Name{Name: s.name}}),
		Namespaced:         !gc.nonNamespaced,
		StripManagedFields: s.strip,
		Pos:                where,
	}
	if m := s.ms.plural; m != nil {
		if !resourcePattern.MatchString(m.value) {
			b.fail(errorf(m.valuePos, ErrorTypeInvalid, m.name(), "%q is not a plural resource name; expected lowercase letters and digits, e.g. plural=endpoints", m.value))
		}
		r.Resource = m.value
	}
	if m := s.ms.strip; m != nil {
		r.StripManagedFields = m.boolValue()
	}
	seen := map[string]*Index{}
	pending := map[*Index]marker{}
	for _, m := range s.ms.indexes {
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
	return r, pending
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

// resolveIndexes type-checks the packages that declare indexes and walks
// each index's field path through its type.
func (b *builder) resolveIndexes(todo []pendingIndexes) {
	if len(todo) == 0 {
		return
	}
	var paths []string
	for _, t := range todo {
		if !slices.Contains(paths, t.s.declPkg.path) {
			paths = append(paths, t.s.declPkg.path)
		}
	}
	list, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: b.cfg.Dir}, paths...)
	if err != nil {
		b.fail(&Error{Type: ErrorTypeLoad, Detail: fmt.Sprintf("type-checking %v: %v", paths, err)})
		return
	}
	scopes := map[string]*types.Scope{}
	for _, lp := range list {
		for _, e := range lp.Errors {
			b.fail(&Error{Pos: errorPos(e.Pos), Type: ErrorTypeLoad, Marker: lp.PkgPath, Detail: e.Msg})
		}
		if lp.Types != nil {
			scopes[lp.PkgPath] = lp.Types.Scope()
		}
	}
	for _, t := range todo {
		scope := scopes[t.s.declPkg.path]
		if scope == nil {
			continue
		}
		obj := scope.Lookup(t.s.declName)
		if obj == nil {
			b.fail(errorf(t.s.pos, ErrorTypeNotFound, "+"+markerName, "type %s not found when type-checking %s", t.s.declName, t.s.declPkg.path))
			continue
		}
		var ok []*Index
		for _, ix := range t.r.Indexes {
			m := t.markers[ix]
			steps, format, named, e := resolveFieldPath(types.Unalias(obj.Type()), ix.Path, m.valuePos, m.name())
			if e != nil {
				b.fail(e)
				continue
			}
			ix.Steps, ix.Format, ix.Named = steps, format, named
			ok = append(ok, ix)
		}
		t.r.Indexes = ok
	}
}

// model groups resources into one output package per API package.
func (b *builder) model(resources []*Resource) *Model {
	byDir := map[string]*Package{}
	m := &Model{}
	for _, r := range resources {
		dir := path.Base(path.Dir(r.TypePkg)) + "/" + r.Version
		p, ok := byDir[dir]
		if !ok {
			p = &Package{Dir: dir, Name: r.Version, ImportPath: path.Join(b.cfg.OutputPkg, dir), Group: r.Group, Version: r.Version}
			byDir[dir] = p
			m.Packages = append(m.Packages, p)
		} else if other := p.Resources[0]; other.TypePkg != r.TypePkg {
			b.fail(errorf(r.Pos, ErrorTypeDuplicate, "+"+markerName,
				"%s and %s would both generate into %s; select types of one of them per run", r.TypePkg, other.TypePkg, dir))
			continue
		}
		p.Resources = append(p.Resources, r)
	}
	slices.SortFunc(m.Packages, func(x, y *Package) int { return cmp.Compare(x.Dir, y.Dir) })
	for _, p := range m.Packages {
		slices.SortFunc(p.Resources, func(x, y *Resource) int { return cmp.Compare(x.Kind, y.Kind) })
	}
	return m
}

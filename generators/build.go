package generators

import (
	"cmp"
	"fmt"
	"go/types"
	"path"
	"slices"

	"golang.org/x/tools/go/packages"
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
	b.selectedNothing(m)
	if len(b.errs) > 0 {
		sortErrors(b.errs)
		return nil, b.errs
	}
	sortErrors(m.Warnings)
	return m, nil
}

func sortErrors(l ErrorList) {
	slices.SortStableFunc(l, func(x, y *Error) int {
		return cmp.Or(cmp.Compare(x.Pos.Filename, y.Pos.Filename), cmp.Compare(x.Pos.Line, y.Pos.Line), cmp.Compare(x.Pos.Column, y.Pos.Column))
	})
}

// selectedNothing says so when a run selects no type: an error with
// --all-genclient, which surely meant to select some; a warning otherwise
// (a run may rightly leave nothing, and remove what it made before).
func (b *builder) selectedNothing(m *Model) {
	if len(m.Packages) > 0 || len(b.errs) > 0 {
		return
	}
	e := &Error{Type: ErrorTypeRequired, Marker: byMarker, Detail: fmt.Sprintf(
		"no type selected in %d package(s) of %v: none has +%s on it or its package (+%s on a package selects its +genclient and +kubebuilder:object:root types)",
		len(m.Read), b.cfg.Patterns, markerName, markerName)}
	if b.cfg.AllGenclient {
		e.Marker = byAllGenclient
		e.Detail = fmt.Sprintf("no +genclient type with list and watch verbs, nor +kubebuilder:object:root kind with a <Kind>List, in %d package(s) of %v", len(m.Read), b.cfg.Patterns)
		b.fail(e)
		return
	}
	m.Warnings = append(m.Warnings, e)
}

type builder struct {
	cfg  Config
	ld   *loader
	errs ErrorList
	sel  map[string]*selection // by target import path + "." + type name
	read []string              // the packages whose markers were read
}

func (b *builder) fail(e *Error)        { b.errs = append(b.errs, e) }
func (b *builder) failAll(es ErrorList) { b.errs = append(b.errs, es...) }

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

// resolve checks every selection against its API package and turns it into a Resource.
func (b *builder) resolve() []*Resource {
	keys := make([]string, 0, len(b.sel))
	for k := range b.sel {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []*Resource
	var todo []pendingPaths
	for _, k := range keys {
		s := b.sel[k]
		if r, pending := b.resource(s); r != nil {
			out = append(out, r)
			if len(pending) > 0 || len(s.ms.keeps) > 0 {
				todo = append(todo, pendingPaths{r, s, pending})
			}
		}
	}
	b.resolvePaths(todo)
	return out
}

// pendingPaths are the field paths of a resource's index and keep markers,
// yet to be walked through the type, and the markers that declared the
// indexes.
type pendingPaths struct {
	r       *Resource
	s       *selection
	markers map[*Index]marker
}

// resolvePaths type-checks the packages that declare indexes or keep
// markers and walks each field path through its type: the kept paths
// first, into the resource's Projection, then each index's, which must
// be kept by the projection.
func (b *builder) resolvePaths(todo []pendingPaths) {
	if len(todo) == 0 {
		return
	}
	var paths []string
	for _, t := range todo {
		if !slices.Contains(paths, t.s.declPkg.path) {
			paths = append(paths, t.s.declPkg.path)
		}
		// A projection reads the list type too, which the declaring
		// package's view of the API package may not hold.
		if len(t.s.ms.keeps) > 0 && !slices.Contains(paths, t.s.target.path) {
			paths = append(paths, t.s.target.path)
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
		typ := types.Unalias(obj.Type())
		if len(t.s.ms.keeps) > 0 {
			p, errs := resolveProjection(t.r, t.s.ms.keeps, typ, scopes[t.s.target.path])
			b.failAll(errs)
			if p == nil {
				continue
			}
			t.r.Projection = p
		}
		var ok []*Index
		for _, ix := range t.r.Indexes {
			m := t.markers[ix]
			steps, format, named, e := resolveFieldPath(typ, ix.Path, m.valuePos, m.name())
			if e == nil && t.r.Projection != nil {
				steps, e = t.r.Projection.indexSteps(steps, ix.Path, m.valuePos, m.name())
			}
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

// model groups resources into one output package per API group and
// version. Two API packages that would land in one folder are an error.
func (b *builder) model(resources []*Resource) *Model {
	byDir := map[string]*Package{}
	m := &Model{Read: slices.Compact(slices.Sorted(slices.Values(b.read)))}
	for _, r := range resources {
		dir := groupDir(r.Group, r.groupGoName) + "/" + r.Version
		p, ok := byDir[dir]
		if !ok {
			p = &Package{Dir: dir, Name: r.Version, ImportPath: path.Join(b.cfg.OutputPkg, dir), Group: r.Group, Version: r.Version}
			byDir[dir] = p
			m.Packages = append(m.Packages, p)
		} else if other := p.Resources[0]; other.TypePkg != r.TypePkg {
			b.fail(errorf(r.Pos, ErrorTypeDuplicate, byMarker,
				"%s (group %q) and %s (group %q) would both generate into %s; give one of them a +groupGoName, or generate them in separate runs with separate --output-dirs",
				r.TypePkg, r.Group, other.TypePkg, other.Group, dir))
			continue
		}
		p.Resources = append(p.Resources, r)
		if !slices.Contains(p.Sources, r.SelectedIn) {
			p.Sources = append(p.Sources, r.SelectedIn)
		}
	}
	slices.SortFunc(m.Packages, func(x, y *Package) int { return cmp.Compare(x.Dir, y.Dir) })
	for _, p := range m.Packages {
		slices.SortFunc(p.Resources, func(x, y *Resource) int { return cmp.Or(cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Name, y.Name)) })
		slices.Sort(p.Sources)
		b.checkNames(p)
	}
	return m
}

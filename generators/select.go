package generators

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"strings"

	"golang.org/x/tools/go/packages"
)

// How a type came to be selected, as errors about it say.
const (
	byMarker       = "+" + markerName
	byAllGenclient = "--all-genclient"
	byTypeFlag     = "--type"
)

// selection is a type chosen for a syncer, and where and how it was chosen.
type selection struct {
	target   *pkg   // the package that declares the API type
	name     string // the API type's name in target
	declPkg  *pkg   // the package whose markers chose it (an alias's package, for an alias)
	declName string // the type's (or alias's) name in declPkg
	ms       markers
	strip    bool // +syncer-gen:stripManagedFields on declPkg
	explicit bool // chosen by a marker on the type itself, not in bulk
	alias    bool // chosen through an alias, declName
	by       string
	pos      token.Position
}

// projection returns the name of the projected type that s's keep
// markers ask for: the alias's, or <Kind>View; "" without keep markers.
func (s *selection) projection() string {
	switch {
	case len(s.ms.keeps) == 0:
		return ""
	case s.alias:
		return s.declName
	}
	return s.name + "View"
}

// add records s, letting a type's own markers win over a bulk selection.
// A projection of a type is a selection of its own, beside the type's.
func (b *builder) add(s *selection) {
	k := s.target.path + "." + s.name
	if p := s.projection(); p != "" {
		k += " as " + p
	}
	old, ok := b.sel[k]
	switch {
	case !ok, !old.explicit && s.explicit:
		b.sel[k] = s
	case old.explicit && s.explicit:
		b.fail(errorf(s.pos, ErrorTypeDuplicate, s.by, "%s.%s is already selected at %s", s.target.path, s.name, old.pos))
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
		b.read = append(b.read, p.path)
		pms := readMarkers(p.packageLines(), onPackage, &b.errs)
		bulkBy := ""
		switch {
		case pms.selected != nil && pms.selected.boolValue():
			bulkBy = byMarker
		case b.cfg.AllGenclient:
			bulkBy = byAllGenclient
		}
		strip := pms.strip != nil && pms.strip.boolValue()
		for _, name := range sortedTypes(p) {
			td := p.types[name]
			lines := commentLines(p.fset, typeComments(p.fset, td.file, td.decl, td.spec)...)
			ms := readMarkers(lines, onType, &b.errs)
			s := &selection{target: p, name: name, declPkg: p, declName: name, ms: ms, strip: strip, pos: ms.pos, by: byMarker}
			switch {
			case ms.selected != nil && !ms.selected.boolValue():
				continue // +syncer-gen=false
			case ms.foundMarkers && (ms.selected != nil || bulkBy != ""):
				s.explicit = true
			case ms.foundMarkers:
				b.fail(errorf(ms.pos, ErrorTypeRequired, byMarker, "%s has +%s options but is not selected; add +%s to the type or its package", name, markerName, markerName))
				continue
			case bulkBy != "" && td.spec.Assign == token.NoPos && b.isResource(p, name, readUpstream(lines)):
				s.pos, s.by = p.fset.Position(td.spec.Name.Pos()), bulkBy
			default:
				continue
			}
			if td.spec.Assign != token.NoPos {
				if !b.followAlias(s, p, td) {
					continue
				}
				s.alias = true
			}
			b.add(s)
		}
	}
}

// isResource tells whether a package selection takes the type: a
// +genclient type with list and watch verbs (+genclient types without
// them cannot be synced), or a kubebuilder +kubebuilder:object:root=true
// kind with its <Kind>List.
func (b *builder) isResource(p *pkg, name string, up upstreamTags) bool {
	if up.genclient {
		return up.canListWatch()
	}
	if !up.root || strings.HasSuffix(name, "List") {
		return false
	}
	list, errs := p.lookup(name + "List")
	b.failAll(errs)
	return list != nil
}

// followAlias points s at the type an alias such as "type Pod = corev1.Pod",
// declared by td in p, stands for, so that types one cannot annotate can
// be given markers.
func (b *builder) followAlias(s *selection, p *pkg, td *typeDecl) bool {
	target, name, ok := b.typeRef(p, td, s.by)
	if ok {
		s.target, s.name = target, name
	}
	return ok
}

// typeRef returns the package and name of the type that td, an alias or a
// defined type declared in p, names: "Other" or "corev1.Pod".
func (b *builder) typeRef(p *pkg, td *typeDecl, by string) (*pkg, string, bool) {
	switch t := td.spec.Type.(type) {
	case *ast.Ident:
		return p, t.Name, true
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		if !ok {
			break
		}
		importPath, err := b.importPathOf(p, td.file, x.Name)
		if err != nil {
			b.fail(errorf(p.fset.Position(x.Pos()), ErrorTypeNotFound, by, "%v", err))
			return nil, "", false
		}
		pkgs, errs := b.ld.load([]string{importPath})
		b.failAll(errs)
		if len(pkgs) != 1 {
			return nil, "", false
		}
		return pkgs[0], t.Sel.Name, true
	}
	b.fail(errorf(p.fset.Position(td.spec.Type.Pos()), ErrorTypeNotSupported, by,
		"an alias must name an API type, e.g. type Pod = corev1.Pod"))
	return nil, "", false
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
			b.fail(&Error{Type: ErrorTypeInvalid, Marker: byTypeFlag, Detail: fmt.Sprintf("%q: expected <import path>.<Type>, e.g. k8s.io/api/core/v1.Pod", t)})
			continue
		}
		pkgs, errs := b.ld.load([]string{t[:i]})
		b.failAll(errs)
		if len(pkgs) != 1 {
			continue
		}
		p, name := pkgs[0], t[i+1:]
		b.read = append(b.read, p.path)
		b.add(&selection{target: p, name: name, declPkg: p, declName: name, by: byTypeFlag})
	}
}

package generators

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// pkg is one Go package as syncer-gen reads it: its syntax, parsed only
// from the files that can hold markers until a lookup needs the rest.
type pkg struct {
	path  string
	name  string
	fset  *token.FileSet
	files []string // every non-test Go file
	// parsed are the files parsed so far; all tells whether that is every file.
	parsed []*ast.File
	all    bool
	types  map[string]*typeDecl // by name, over parsed
	// group is the API group, once groupName has looked for it.
	group                 string
	groupFound, groupRead bool
}

// typeDecl is one type declaration.
type typeDecl struct {
	file *ast.File
	decl *ast.GenDecl
	spec *ast.TypeSpec
}

// markerHints are the texts a file must hold to carry a marker syncer-gen reads.
// "+syncer" and "+Syncer" also catch misspelt prefixes, reported as errors.
var markerHints = [][]byte{[]byte("+syncer"), []byte("+Syncer"), []byte("+genclient"), []byte("+groupName"), []byte("+kubebuilder:"), []byte("+resourceName")}

// loader loads packages by import path or pattern, once each.
type loader struct {
	dir  string // working directory for the go command
	fset *token.FileSet
	pkgs map[string]*pkg
}

func newLoader(dir string) *loader {
	return &loader{dir: dir, fset: token.NewFileSet(), pkgs: map[string]*pkg{}}
}

// load finds the packages of patterns with the go command and parses
// their files that hold markers. It returns the packages in the order the
// go command gives, and an error for each pattern or package it cannot load.
func (l *loader) load(patterns []string) ([]*pkg, ErrorList) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles, Dir: l.dir}
	list, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, ErrorList{{Type: ErrorTypeLoad, Detail: fmt.Sprintf("loading %v: %v", patterns, err)}}
	}
	var errs ErrorList
	var out []*pkg
	var toParse []*pkg
	for _, lp := range list {
		for _, e := range lp.Errors {
			errs = append(errs, &Error{Pos: errorPos(e.Pos), Type: ErrorTypeLoad, Marker: lp.PkgPath, Detail: e.Msg})
		}
		if len(lp.Errors) > 0 {
			continue
		}
		if p, ok := l.pkgs[lp.PkgPath]; ok {
			out = append(out, p)
			continue
		}
		p := &pkg{path: lp.PkgPath, name: lp.Name, fset: l.fset, files: lp.GoFiles, types: map[string]*typeDecl{}}
		l.pkgs[p.path] = p
		out = append(out, p)
		toParse = append(toParse, p)
	}
	errs = append(errs, parseAll(toParse, true)...)
	return out, errs
}

// errorPos turns a go/packages error position, "file:line:col",
// "file:line" or "", into a token.Position.
func errorPos(s string) token.Position {
	var p token.Position
	if s == "" || s == "-" {
		return p
	}
	rest := s
	var nums []int
	for range 2 {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		rest = rest[:i]
	}
	p.Filename = rest
	if len(nums) > 0 {
		p.Line = nums[0]
	}
	if len(nums) > 1 {
		p.Column = nums[1]
	}
	return p
}

// parseAll parses, in parallel, the files of pkgs that hold markers (every
// file when hinted is false). Errors are syntax errors of the files.
func parseAll(pkgs []*pkg, hinted bool) ErrorList {
	type job struct {
		p    *pkg
		name string
	}
	var jobs []job
	for _, p := range pkgs {
		for _, f := range p.files {
			jobs = append(jobs, job{p, f})
		}
	}
	results := make([]*ast.File, len(jobs))
	errs := make([]error, len(jobs))
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Go(func() {
			for {
				next.Lock()
				n := i
				i++
				next.Unlock()
				if n >= len(jobs) {
					return
				}
				j := jobs[n]
				src, err := os.ReadFile(j.name)
				if err != nil {
					errs[n] = err
					continue
				}
				if hinted && !slices.ContainsFunc(markerHints, func(h []byte) bool { return bytes.Contains(src, h) }) {
					continue
				}
				results[n], errs[n] = parser.ParseFile(j.p.fset, j.name, src, parser.ParseComments|parser.SkipObjectResolution)
			}
		})
	}
	wg.Wait()
	var out ErrorList
	for n, j := range jobs {
		if errs[n] != nil {
			out = append(out, &Error{Pos: token.Position{Filename: j.name}, Type: ErrorTypeLoad, Marker: j.p.path, Detail: errs[n].Error()})
			continue
		}
		if f := results[n]; f != nil {
			j.p.add(f)
		}
	}
	for _, p := range pkgs {
		p.all = !hinted
	}
	return out
}

// add indexes the type declarations of f.
func (p *pkg) add(f *ast.File) {
	p.parsed = append(p.parsed, f)
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			p.types[ts.Name.Name] = &typeDecl{file: f, decl: gd, spec: ts}
		}
	}
}

// lookup returns the declaration of the type name, parsing the package's
// remaining files if the ones with markers do not declare it.
func (p *pkg) lookup(name string) (*typeDecl, ErrorList) {
	if td, ok := p.types[name]; ok || p.all {
		return td, nil
	}
	errs := p.parseRest()
	return p.types[name], errs
}

// stringConst returns the value of the package-level string constant name,
// such as the GroupName of a register.go.
func (p *pkg) stringConst(name string) (string, bool, ErrorList) {
	errs := p.parseRest()
	if lit, ok := p.value(token.CONST, name).(*ast.BasicLit); ok && lit.Kind == token.STRING {
		if v, err := strconv.Unquote(lit.Value); err == nil {
			return v, true, errs
		}
	}
	return "", false, errs
}

// value returns the expression a package-level const or var (tok) name
// is declared with, nil if none, in the files parsed so far.
func (p *pkg) value(tok token.Token, name string) ast.Expr {
	for _, f := range p.parsed {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != tok {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name == name && i < len(vs.Values) {
						return vs.Values[i]
					}
				}
			}
		}
	}
	return nil
}

// parseRest parses the files not parsed yet.
func (p *pkg) parseRest() ErrorList {
	if p.all {
		return nil
	}
	parsed := map[string]bool{}
	for _, f := range p.parsed {
		parsed[p.fset.Position(f.Package).Filename] = true
	}
	rest := &pkg{path: p.path, fset: p.fset, types: map[string]*typeDecl{}}
	for _, f := range p.files {
		if !parsed[f] {
			rest.files = append(rest.files, f)
		}
	}
	errs := parseAll([]*pkg{rest}, false)
	for _, f := range rest.parsed {
		p.add(f)
	}
	p.all = true
	return errs
}

// packageLines returns the comment lines above the package clauses of the
// parsed files: the package's markers.
func (p *pkg) packageLines() []commentLine {
	var lines []commentLine
	for _, f := range p.parsed {
		lines = append(lines, commentLines(p.fset, packageComments(f)...)...)
	}
	return lines
}

// groupName returns the package's API group: its +groupName marker, else
// (as in k8s.io/api/apps/v1) its GroupName constant, else (as in a
// kubebuilder groupversion_info.go) the Group of its GroupVersion or
// SchemeGroupVersion variable. It is looked for once.
func (p *pkg) groupName() (string, bool, ErrorList) {
	if p.groupRead {
		return p.group, p.groupFound, nil
	}
	p.groupRead = true
	var errs ErrorList
	p.group, _, p.groupFound = packageValue(p.packageLines(), "groupName")
	if !p.groupFound {
		p.group, p.groupFound, errs = p.stringConst("GroupName")
	}
	if !p.groupFound {
		p.group, p.groupFound = p.groupVersionVar()
	}
	return p.group, p.groupFound, errs
}

// groupGoName returns the package's +groupGoName marker, "" without one.
func (p *pkg) groupGoName() string {
	v, _, _ := packageValue(p.packageLines(), "groupGoName")
	return v
}

// groupVersionVar returns the Group of a package-level
//
//	GroupVersion = schema.GroupVersion{Group: "cluster.x-k8s.io", Version: "v1beta2"}
//
// (or SchemeGroupVersion), whose Group is a string or a string constant.
// The package's files are all parsed by then.
func (p *pkg) groupVersionVar() (string, bool) {
	for _, name := range []string{"GroupVersion", "SchemeGroupVersion"} {
		if g, ok := p.groupField(p.value(token.VAR, name)); ok {
			return g, true
		}
	}
	return "", false
}

// groupField returns the Group field of a composite literal such as
// schema.GroupVersion{Group: GroupName, Version: "v1"}.
func (p *pkg) groupField(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return "", false
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if k, isIdent := kv.Key.(*ast.Ident); !ok || !isIdent || k.Name != "Group" {
			continue
		}
		switch v := kv.Value.(type) {
		case *ast.BasicLit:
			if g, err := strconv.Unquote(v.Value); err == nil && v.Kind == token.STRING {
				return g, true
			}
		case *ast.Ident:
			g, found, _ := p.stringConst(v.Name)
			return g, found
		}
	}
	return "", false
}

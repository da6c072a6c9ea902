package corpus

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// binding is a resource's name and scope, and the file that says so.
type binding struct {
	resource   string
	namespaced bool
	from       string
}

// gvk names a kind in a group and version.
type gvk struct{ group, version, kind string }

// goType names a Go API type by import path and name.
type goType struct{ pkg, name string }

// crd is the part of a CustomResourceDefinition the test reads.
type crd struct {
	Kind string `json:"kind"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Scope    string `json:"scope"`
		Versions []struct {
			Name string `json:"name"`
		} `json:"versions"`
	} `json:"spec"`
}

// readCRDs reads every CustomResourceDefinition in the YAML files under
// dirs, by group, version and kind.
func readCRDs(dirs []string) (map[gvk]binding, error) {
	out := map[gvk]binding{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml")) {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, doc := range bytes.Split(data, []byte("\n---")) {
				var c crd
				if yaml.Unmarshal(doc, &c) != nil || c.Kind != "CustomResourceDefinition" {
					continue // not a CRD (kustomizations, templates)
				}
				for _, v := range c.Spec.Versions {
					out[gvk{c.Spec.Group, v.Name, c.Spec.Names.Kind}] = binding{c.Spec.Names.Plural, c.Spec.Scope == "Namespaced", p}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readTypedClients reads the typed clients client-gen made under dir
// (.../clientset/versioned/typed): in each, a call
//
//	gentype.NewClientWithList[*v1.Kind, ...]("resources", c.RESTClient(), scheme.ParameterCodec, namespace, ...)
//
// binds the Go type to its resource, namespaced unless the namespace argument is "".
func readTypedClients(dir string) (map[goType]binding, error) {
	out := map[goType]binding{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "/fake/") {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		imports := importsOf(f)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 4 {
				return true
			}
			idx, ok := call.Fun.(*ast.IndexListExpr)
			if !ok {
				return true
			}
			if sel, ok := idx.X.(*ast.SelectorExpr); !ok || !strings.HasPrefix(sel.Sel.Name, "NewClient") {
				return true
			}
			t, ok := typeOf(idx.Indices[0], imports)
			res, isLit := call.Args[0].(*ast.BasicLit)
			if !ok || !isLit {
				return true
			}
			resource, _ := strconv.Unquote(res.Value)
			ns, isNSLit := call.Args[3].(*ast.BasicLit)
			out[t] = binding{resource, !isNSLit || ns.Value != `""`, p}
			return true
		})
		return nil
	})
	return out, err
}

// importsOf maps a file's import names to their paths.
func importsOf(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		m[name] = p
	}
	return m
}

// typeOf resolves *pkg.Name to its Go type.
func typeOf(e ast.Expr, imports map[string]string) (goType, bool) {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return goType{}, false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok || imports[x.Name] == "" {
		return goType{}, false
	}
	return goType{imports[x.Name], sel.Sel.Name}, true
}

// syncer is what a generated <kind>_syncer.go binds.
type syncer struct {
	gvk
	goType
	binding
}

// readSyncers reads the Resource variable of every generated syncer under dir:
//
//	var KindResource = runtime.Resource{Group: "g", Version: "v", Resource: "r", Kind: "K", Namespaced: true,
//		NewList: func() kruntime.Object { return &pkg.KindList{} }}
func readSyncers(dir string) ([]syncer, error) {
	var out []syncer
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_syncer.go") {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		imports := importsOf(f)
		var s syncer
		fields := map[string]string{}
		ast.Inspect(f, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok {
				return true
			}
			k, _ := kv.Key.(*ast.Ident)
			switch v := kv.Value.(type) {
			case *ast.BasicLit:
				fields[k.Name], _ = strconv.Unquote(v.Value)
			case *ast.Ident:
				fields[k.Name] = v.Name
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
				if cl, ok := u.X.(*ast.CompositeLit); ok {
					if t, ok := typeOf(cl.Type, imports); ok {
						s.goType = goType{t.pkg, strings.TrimSuffix(t.name, "List")}
					}
				}
			}
			return true
		})
		s.gvk = gvk{fields["Group"], fields["Version"], fields["Kind"]}
		s.binding = binding{fields["Resource"], fields["Namespaced"] == "true", p}
		if s.kind == "" || s.pkg == "" {
			return fmt.Errorf("%s: no Resource variable found", p)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

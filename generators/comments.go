package generators

import (
	"go/ast"
	"go/token"
	"strings"
)

// commentLine is one "//" comment line, without the slashes, and where its
// text starts.
type commentLine struct {
	text string
	pos  token.Position
}

// commentLines returns the "//" lines of groups, in order, each with the
// position of its first non-blank character.
func commentLines(fset *token.FileSet, groups ...*ast.CommentGroup) []commentLine {
	var out []commentLine
	for _, g := range groups {
		if g == nil {
			continue
		}
		for _, c := range g.List {
			if !strings.HasPrefix(c.Text, "//") {
				continue // block comments carry no markers
			}
			body := c.Text[2:]
			trimmed := strings.TrimLeft(body, " \t")
			pos := fset.Position(c.Slash)
			out = append(out, commentLine{text: strings.TrimRight(trimmed, " \t"), pos: at(pos, 2+len(body)-len(trimmed))})
		}
	}
	return out
}

// typeComments returns the comment groups that carry a type declaration's
// markers, as k8s.io/code-generator reads them: the doc comment, and the
// block that ends one blank line above it (where +genclient usually sits).
func typeComments(fset *token.FileSet, f *ast.File, gd *ast.GenDecl, ts *ast.TypeSpec) []*ast.CommentGroup {
	doc := ts.Doc
	if doc == nil && len(gd.Specs) == 1 {
		doc = gd.Doc
	}
	top := gd.Pos()
	if doc != nil {
		top = doc.Pos()
	}
	line := fset.Position(top).Line
	var second *ast.CommentGroup
	for _, g := range f.Comments {
		if g.End() >= top {
			break
		}
		if fset.Position(g.End()).Line == line-2 {
			second = g
		}
	}
	return []*ast.CommentGroup{second, doc}
}

// packageComments returns every comment group above a file's package
// clause: the package doc and the marker blocks before it.
func packageComments(f *ast.File) []*ast.CommentGroup {
	var out []*ast.CommentGroup
	for _, g := range f.Comments {
		if g.End() >= f.Package {
			break
		}
		out = append(out, g)
	}
	return out
}

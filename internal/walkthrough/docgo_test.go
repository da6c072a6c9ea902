package walkthrough

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every package of the module has a doc.go, holding its package comment
// (the house rule controller-runtime follows): a reader opens one file to
// learn what a package is for. Issue 42, defect 11.
func TestEveryPackageHasADocGo(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module's root: %v", err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "bin") {
			return filepath.SkipDir
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		hasGo, hasDoc := false, false
		for _, e := range entries {
			n := e.Name()
			if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				hasGo = true
			}
			hasDoc = hasDoc || n == "doc.go"
		}
		if hasGo && !hasDoc {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("package %s has no doc.go", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

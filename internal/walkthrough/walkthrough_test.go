package walkthrough

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func repoRoot() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..")
}

func TestREADMEWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a new module with the go command; skipped with -short")
	}
	root := repoRoot()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := steps(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, s := range st {
		if s.file != "" {
			files++
		}
	}
	if len(st)-files < 3 || files < 4 {
		t.Fatalf("found %d command blocks and %d files in the README's walkthrough; the marks are lost", len(st)-files, files)
	}
	dir := t.TempDir()
	cmd := exec.Command("bash", "-c", script(st))
	cmd.Dir = dir
	abs, _ := filepath.Abs(root)
	cmd.Env = append(os.Environ(), "SYNCER_GEN="+abs)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the walkthrough fails: %v\n%s\nscript:\n%s", err, out, script(st))
	}
	// The steps made a module whose generated syncer has the marker's index, and that builds.
	shop := filepath.Join(dir, "shop")
	syncer, err := os.ReadFile(filepath.Join(shop, "syncers/shop/v1alpha1/widget_store.go"))
	if err != nil || !strings.Contains(string(syncer), "func (s WidgetStore) ByOwner(owner string)") {
		t.Errorf("syncers/shop/v1alpha1/widget_store.go: %v, no ByOwner", err)
	}
	if _, err := os.Stat(filepath.Join(shop, "api/shop/v1alpha1/zz_generated.deepcopy.go")); err != nil {
		t.Errorf("deepcopy-gen wrote nothing: %v", err)
	}
	vet := exec.Command("go", "vet", "./...")
	vet.Dir = shop
	if out, err := vet.CombinedOutput(); err != nil {
		t.Errorf("go vet: %v\n%s", err, out)
	}

	// A projection added later (a keep marker on an alias) generates and
	// builds with no go mod tidy first: the module's go.sum covers what its
	// decoders import.
	views := filepath.Join(shop, "api/shop/views")
	if err := os.MkdirAll(views, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(views, "views.go"), []byte(`// Package views holds projections of the shop's types.
package views

import v1alpha1 "example.com/shop/api/shop/v1alpha1"

// WidgetOwner is what a dashboard reads of a widget.
//
// +syncer-gen
// +syncer-gen:keep=.spec.owner
type WidgetOwner = v1alpha1.Widget
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"generate", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = shop
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s after adding a projection, without go mod tidy: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(shop, "syncers/shop/v1alpha1/widgetowner_json.go")); err != nil {
		t.Errorf("no decoder generated for the projection: %v", err)
	}
}

// The README parser finds marked blocks, and refuses a mark without a block.
func TestSteps(t *testing.T) {
	got, err := steps("x\n" + shMark + "\n```sh\necho hi\n```\n" + filePref + "a/b.go -->\n```go\npackage b\n```\n```sh\nnot marked\n```\n")
	if err != nil || len(got) != 2 || got[0].text != "echo hi\n" || got[1].file != "a/b.go" || got[1].text != "package b\n" {
		t.Errorf("got %+v, %v", got, err)
	}
	if _, err := steps(shMark + "\ntext\n"); err == nil {
		t.Error("a mark without a block is accepted")
	}
}

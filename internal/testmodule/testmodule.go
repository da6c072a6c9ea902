package testmodule

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

// Path is the module path of the modules Write makes.
const Path = "example.com/m"

// self is this repository's module path.
const self = "github.com/syncer-gen/syncer-gen"

// Write writes files (slash-separated path -> content) into a new module in
// a temporary folder and returns the folder. The module requires what this
// repository's go.mod requires, with its go.sum, so that it builds from the
// module cache with no download, and this repository itself (replaced by
// its folder), so that generated code can import the runtime.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module "+Path))
	mod = regexp.MustCompile(`(?s)\ntool \(.*?\)\n`).ReplaceAll(mod, nil)
	mod = regexp.MustCompile(`(?m)^tool .*$`).ReplaceAll(mod, nil)
	mod = append(mod, "\nrequire "+self+" v0.0.0\n\nreplace "+self+" => "+root+"\n"...)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"go.mod": string(mod), "go.sum": string(sum)}
	for k, v := range files {
		all[k] = v
	}
	dir := t.TempDir()
	for name, content := range all {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

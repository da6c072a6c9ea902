package main

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/testmodule"
)

// repoRoot is the repository's root folder.
func repoRoot(t *testing.T) string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..")
}

// readTree returns every file under dir with its content, testdata/ left out; an absent dir is empty.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if os.IsNotExist(err) && p == dir {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if d.IsDir() {
			// testdata holds the fuzz seeds written by hand beside the
			// generated fuzzers: not the generator's output.
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func runCmd(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	code := run(args, &stderr)
	return code, stderr.String()
}

func TestUsage(t *testing.T) {
	if code, out := runCmd(t, "--help"); code != exitOK || !strings.Contains(out, "Usage: syncer-gen") || !strings.Contains(out, "--output-dir") {
		t.Errorf("--help: exit %d, output %q", code, out)
	}
	for _, args := range [][]string{
		{},
		{"./api/..."},
		{"--output-dir", t.TempDir()},
		{"--output-dir", t.TempDir(), "--nope", "./..."},
		{"--output-dir", t.TempDir(), "--all-genclient", "--type", "k8s.io/api/core/v1.Pod"},
		{"--output-dir", t.TempDir(), "--go-header-file", "/does/not/exist", "./..."},
	} {
		if code, out := runCmd(t, args...); code != exitUsage || out == "" {
			t.Errorf("%v: exit %d with %q, want %d and a message", args, code, out, exitUsage)
		}
	}
}

// The golden output is what the generator makes, byte for byte, every time.
func TestGoldenOutput(t *testing.T) {
	root := repoRoot(t)
	t.Chdir(root)
	want := readTree(t, filepath.Join(root, "internal/golden/syncers"))
	if len(want) == 0 {
		t.Fatal("no golden files")
	}
	for i := range 2 {
		out := filepath.Join(t.TempDir(), "syncers")
		code, stderr := runCmd(t, "--output-dir", out, "--output-pkg", "github.com/syncer-gen/syncer-gen/internal/golden/syncers",
			"--go-header-file", "hack/boilerplate.go.txt", "./internal/golden/api/...")
		if code != exitOK {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
		if got := readTree(t, out); !maps.Equal(got, want) {
			for name := range want {
				if got[name] != want[name] {
					t.Errorf("run %d: %s differs from internal/golden/syncers (run hack/update-codegen.sh)", i, name)
				}
			}
			t.Fatalf("run %d: %d files, want %d", i, len(got), len(want))
		}
	}
}

const badTypes = `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +syncer-gen
// +syncer-gen:index=.spec.nodeNam
type Thing struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec              Spec ` + "`json:\"spec\"`" + `
}

type Spec struct {
	NodeName string ` + "`json:\"nodeName\"`" + `
}

type ThingList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items           []Thing ` + "`json:\"items\"`" + `
}
`

// A bad marker fails the run, names file:line:col, and writes nothing: the
// output of an earlier good run is left as it was.
func TestBadMarkerWritesNothing(t *testing.T) {
	good := strings.Replace(badTypes, ".spec.nodeNam\n", ".spec.nodeName\n", 1)
	dir := testmodule.Write(t, map[string]string{
		"api/v1/doc.go":   "// +groupName=things.example.com\npackage v1\n",
		"api/v1/types.go": good,
	})
	t.Chdir(dir)
	out := filepath.Join(dir, "syncers")
	if code, stderr := runCmd(t, "--output-dir", out, "./api/..."); code != exitOK {
		t.Fatalf("good run: exit %d: %s", code, stderr)
	}
	before := readTree(t, out)
	if _, ok := before["things/v1/thing_store.go"]; !ok {
		t.Fatalf("good run wrote %v", slicesOfKeys(before))
	}
	if err := os.WriteFile(filepath.Join(dir, "api/v1/types.go"), []byte(badTypes), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := runCmd(t, "--output-dir", out, "./api/...")
	if code != exitError {
		t.Fatalf("bad run: exit %d, want %d: %s", code, exitError, stderr)
	}
	// Line 6, column 27: the ".nodeNam" of "// +syncer-gen:index=.spec.nodeNam".
	if want := regexp.MustCompile(`^api/v1/types\.go:6:27: \+syncer-gen:index: .*"nodeNam".*did you mean "nodeName"`); !want.MatchString(stderr) {
		t.Errorf("stderr %q does not name file:line:col and the fix", stderr)
	}
	if got := readTree(t, out); !maps.Equal(got, before) {
		t.Errorf("the failed run changed the output")
	}
}

// thingTypes declares the API types Thing and Other, with markers.
func thingTypes(thing, other string) string {
	decl := func(markers, name string) string {
		return markers + "\ntype " + name + " struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n}\n\n" +
			"type " + name + "List struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ListMeta `json:\"metadata,omitempty\"`\n\tItems []" + name + " `json:\"items\"`\n}\n\n"
	}
	return "package v1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n" + decl(thing, "Thing") + decl(other, "Other")
}

// Two runs share one output folder, each owning the packages it generates;
// a type that is no longer selected loses its files, with a warning, and
// hand-written files stay.
func TestRunsShareTheOutputFolder(t *testing.T) {
	dir := testmodule.Write(t, map[string]string{
		"a/v1/doc.go":   "// +groupName=alpha.example.com\npackage v1\n",
		"a/v1/types.go": thingTypes("// +genclient\n// +syncer-gen", "// +genclient\n// +syncer-gen"),
		"b/v1/doc.go":   "// +groupName=beta.example.com\n// +syncer-gen\npackage v1\n",
		"b/v1/types.go": thingTypes("// +genclient", ""),
	})
	t.Chdir(dir)
	gen := func(pkg string) string {
		t.Helper()
		code, stderr := runCmd(t, "--output-dir", "syncers", pkg)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", pkg, code, stderr)
		}
		return stderr
	}
	gen("./a/...")
	gen("./b/...")
	got := readTree(t, filepath.Join(dir, "syncers"))
	for _, f := range []string{"alpha/v1/thing_syncer.go", "alpha/v1/other_syncer.go", "beta/v1/thing_syncer.go"} {
		if _, ok := got[f]; !ok {
			t.Errorf("%s missing after both runs; have %v", f, slicesOfKeys(got))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "syncers/alpha/v1/mine.go"), []byte("package v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Other loses its markers: the run of ./a removes its syncer and says so.
	if err := os.WriteFile(filepath.Join(dir, "a/v1/types.go"), []byte(thingTypes("// +genclient\n// +syncer-gen", "// +genclient")), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := gen("./a/...")
	if !strings.Contains(stderr, "warning: removed the syncer of other in alpha/v1") {
		t.Errorf("the removal is not told: %q", stderr)
	}
	got = readTree(t, filepath.Join(dir, "syncers"))
	for f, want := range map[string]bool{"alpha/v1/thing_syncer.go": true, "alpha/v1/other_syncer.go": false, "alpha/v1/other_store.go": false, "alpha/v1/mine.go": true, "beta/v1/thing_syncer.go": true} {
		if _, ok := got[f]; ok != want {
			t.Errorf("%s: present %v, want %v", f, ok, want)
		}
	}
}

func slicesOfKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Every +genclient type of k8s.io/api gets a syncer that compiles and
// passes go vet: the same 147 types informer-gen makes informers for.
func TestAllOfKubernetesAPICompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every k8s.io/api package; skipped with -short")
	}
	dir := testmodule.Write(t, map[string]string{})
	t.Chdir(dir)
	if code, stderr := runCmd(t, "--output-dir", "syncers", "--all-genclient", "k8s.io/api/..."); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	n := 0
	for name := range readTree(t, filepath.Join(dir, "syncers")) {
		if strings.HasSuffix(name, "_syncer.go") {
			n++
		}
	}
	if n < 140 {
		t.Errorf("%d syncers for k8s.io/api, want about 147", n)
	}
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
}

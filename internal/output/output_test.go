package output

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var header = []byte("// generated\n")

func isGen(b []byte) bool { return bytes.HasPrefix(b, header) }

func gen(s string) []byte { return append(append([]byte{}, header...), s...) }

// doc is a generated doc.go that records its sources.
func doc(sources ...string) []byte {
	var b []byte
	for _, s := range sources {
		b = append(b, "// src: "+s+"\n"...)
	}
	return append(gen(string(b)), "package v1\n"...)
}

func sourcesOf(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if s, ok := strings.CutPrefix(l, "// src: "); ok {
			out = append(out, s)
		}
	}
	return out
}

// reading is the Ownership of a run that reads pkgs.
func reading(pkgs ...string) Ownership {
	return Ownership{Read: pkgs, IsGenerated: isGen, Sources: sourcesOf}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tree returns every file under dir with its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = read(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWriteNewChangedUnchangedAndStale(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	res, err := Write(dir, map[string][]byte{"a/v1/doc.go": doc("A"), "a/v1/x.go": gen("x"), "a/v1/y.go": gen("y"), "b/v1/doc.go": doc("B"), "b/v1/z.go": gen("z")}, reading("A", "B"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Written, []string{"a/v1/doc.go", "a/v1/x.go", "a/v1/y.go", "b/v1/doc.go", "b/v1/z.go"}) {
		t.Fatalf("written %v", res.Written)
	}
	// A hand-written file beside the generated ones is never touched.
	if err := os.WriteFile(filepath.Join(dir, "a/v1/mine.go"), []byte("package v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Write(dir, map[string][]byte{"a/v1/doc.go": doc("A"), "a/v1/x.go": gen("x"), "a/v1/y.go": gen("y2")}, reading("A", "B"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Written, []string{"a/v1/y.go"}) || !slices.Equal(res.Unchanged, []string{"a/v1/doc.go", "a/v1/x.go"}) || !slices.Equal(res.Removed, []string{"b/v1/doc.go", "b/v1/z.go"}) {
		t.Fatalf("got %+v", res)
	}
	want := map[string]string{"a/v1/doc.go": string(doc("A")), "a/v1/x.go": string(gen("x")), "a/v1/y.go": string(gen("y2")), "a/v1/mine.go": "package v1\n"}
	if got := tree(t, dir); !maps.Equal(got, want) {
		t.Fatalf("tree %v, want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "b")); !os.IsNotExist(err) {
		t.Errorf("the emptied folder b is still there: %v", err)
	}
}

func TestWriteRefusesToOverwriteHandWrittenFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old.go"), gen("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "y.go"), []byte("package mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	_, err := Write(dir, map[string][]byte{"new/v1/x.go": gen("x"), "y.go": gen("y")}, reading())
	if err == nil {
		t.Fatal("no error for a hand-written file in the way")
	}
	if got := tree(t, dir); !maps.Equal(got, before) {
		t.Fatalf("the folder changed on failure: %v, want %v", got, before)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("a folder made for the failed run is left: %v", err)
	}
}

func TestWriteLeavesNothingWhenAFolderCannotBeMade(t *testing.T) {
	dir := t.TempDir()
	// "b" is a file, so b/v1/z.go cannot be written: a.go was staged first.
	if err := os.WriteFile(filepath.Join(dir, "b"), []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	if _, err := Write(dir, map[string][]byte{"a/v1/a.go": gen("a"), "b/v1/z.go": gen("z")}, reading()); err == nil {
		t.Fatal("no error")
	}
	if got := tree(t, dir); !maps.Equal(got, before) {
		t.Fatalf("the folder changed on failure: %v, want %v", got, before)
	}
}

// Runs that read different packages share the folder: each rewrites and
// removes only the packages generated from what it reads, and writing into
// another run's package is an error that changes nothing.
func TestWriteSharedFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(own Ownership, files map[string][]byte) (Result, error) {
		t.Helper()
		return Write(dir, files, own)
	}
	if _, err := write(reading("A"), map[string][]byte{"a/v1/doc.go": doc("A"), "a/v1/x.go": gen("x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := write(reading("B"), map[string][]byte{"b/v1/doc.go": doc("B"), "b/v1/y.go": gen("y")}); err != nil {
		t.Fatal(err)
	}
	if _, err := write(reading("X", "Y"), map[string][]byte{"x/v1/doc.go": doc("X", "Y"), "x/v1/y.go": gen("y")}); err != nil {
		t.Fatal(err)
	}
	both := tree(t, dir)
	for _, tt := range []struct {
		name  string
		own   Ownership
		files map[string][]byte
	}{
		{"into another run's package", reading("C"), map[string][]byte{"a/v1/doc.go": doc("C"), "a/v1/z.go": gen("z")}},
		{"into a package with a source it does not read", reading("X"), map[string][]byte{"x/v1/doc.go": doc("X"), "x/v1/y.go": gen("y")}},
		{"removing from a package with a source it does not read", reading("X"), map[string][]byte{}},
	} {
		if _, err := write(tt.own, tt.files); !errors.Is(err, ErrConflict) {
			t.Errorf("%s: got %v, want ErrConflict", tt.name, err)
		}
		if got := tree(t, dir); !maps.Equal(got, both) {
			t.Fatalf("%s: the folder changed on failure", tt.name)
		}
	}
	// The run of B, selecting nothing now, removes its package and only it.
	res, err := write(reading("B"), map[string][]byte{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Removed, []string{"b/v1/doc.go", "b/v1/y.go"}) {
		t.Errorf("removed %v, want b/v1's files", res.Removed)
	}
	if got := tree(t, dir); len(got) != 4 || got["a/v1/x.go"] == "" || got["x/v1/y.go"] == "" {
		t.Errorf("left %v, want a/v1 and x/v1 only", slices.Sorted(maps.Keys(got)))
	}
}

package args

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/mod/modfile"
)

// Args are syncer-gen's arguments.
type Args struct {
	// Patterns are the package patterns to read markers from (positional).
	Patterns []string
	// OutputDir is the folder the generated packages go into.
	OutputDir string
	// OutputPkg is the Go import path of OutputDir; found from go.mod when empty.
	OutputPkg string
	// GoHeaderFile is a file whose text heads every generated file.
	GoHeaderFile string
	// Year replaces " YEAR" in the header; the current year when empty.
	Year string
	// Types selects types without markers, as "importpath.Name".
	Types []string
	// AllGenclient selects every +genclient type of the Patterns' packages.
	AllGenclient bool
	// Verbose is how much to tell on stderr: 0 nothing on success, 1 a summary, 2 every file.
	Verbose int
}

// AddFlags adds the flags of a to fs.
func (a *Args) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&a.OutputDir, "output-dir", "", "the folder to write the generated packages into, one per API group and version: <output-dir>/<group>/<version>, <group> being the +groupGoName in lower case or the group's first label (gateway for gateway.networking.k8s.io, core for the core group); runs can share it: each owns the packages generated from the packages it reads, rewrites those and removes their files no longer selected")
	fs.StringVar(&a.OutputPkg, "output-pkg", "", "the Go import path of --output-dir (default: found from the go.mod above it)")
	fs.StringVar(&a.GoHeaderFile, "go-header-file", "", "a file whose text (e.g. a license comment) heads every generated file; a YEAR in it (\"Copyright YEAR\") becomes --year")
	fs.StringVar(&a.Year, "year", "", "the year that replaces YEAR in the header, as controller-gen's year= does (default: the current year, as deepcopy-gen fills it)")
	fs.StringSliceVar(&a.Types, "type", nil, "select a type without a marker, as <import path>.<Type>, e.g. k8s.io/api/core/v1.Pod; repeat or separate with commas")
	fs.BoolVar(&a.AllGenclient, "all-genclient", false, "select every +genclient type with list and watch verbs, and every +kubebuilder:object:root kind with a <Kind>List, of the given packages, as a +syncer-gen in each package's doc.go would")
	fs.CountVarP(&a.Verbose, "verbose", "v", "tell what is done on stderr: -v a summary, -vv every file")
}

// Validate checks a, fills in OutputPkg when it is empty, and returns an
// error that says what to fix.
func (a *Args) Validate() error {
	if a.OutputDir == "" {
		return errors.New("--output-dir is required")
	}
	if len(a.Patterns) == 0 && len(a.Types) == 0 {
		return errors.New("no packages given: name the packages to read markers from, e.g. ./api/..., or select types with --type")
	}
	if a.AllGenclient && len(a.Patterns) == 0 {
		return errors.New("--all-genclient needs packages, e.g. --all-genclient k8s.io/api/core/v1")
	}
	if a.GoHeaderFile != "" {
		if _, err := os.Stat(a.GoHeaderFile); err != nil {
			return fmt.Errorf("--go-header-file: %w", err)
		}
	}
	if a.OutputPkg == "" {
		pkg, err := importPathOf(a.OutputDir)
		if err != nil {
			return fmt.Errorf("--output-pkg not given and %w", err)
		}
		a.OutputPkg = pkg
	}
	return nil
}

// importPathOf returns the Go import path of dir, from the go.mod of the
// module that holds it. dir need not exist yet.
func importPathOf(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			mod := modfile.ModulePath(data)
			if mod == "" {
				return "", fmt.Errorf("%s has no module line", filepath.Join(d, "go.mod"))
			}
			rel, _ := filepath.Rel(d, abs)
			if rel == "." {
				return mod, nil
			}
			return mod + "/" + filepath.ToSlash(rel), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s to find its import path from", abs)
		}
	}
}

// Header returns the text of GoHeaderFile, "" when none is given. Each
// word YEAR after a space in it becomes the year: Year, else the current
// year in UTC. This is controller-gen's rule (" YEAR" becomes the year of
// its year= argument; here not within a longer word) with deepcopy-gen's
// default (the current year), so that a kubebuilder or code-generator
// boilerplate's "Copyright YEAR" reads as in the files those tools write.
func (a *Args) Header() (string, error) {
	if a.GoHeaderFile == "" {
		return "", nil
	}
	b, err := os.ReadFile(a.GoHeaderFile)
	if err != nil {
		return "", fmt.Errorf("--go-header-file: %w", err)
	}
	h := strings.TrimSpace(string(b))
	if h != "" && !strings.HasPrefix(h, "//") && !strings.HasPrefix(h, "/*") {
		return "", fmt.Errorf("--go-header-file: %s does not hold a Go comment (// or /* */)", a.GoHeaderFile)
	}
	year := a.Year
	if year == "" {
		year = strconv.Itoa(time.Now().UTC().Year())
	}
	return yearWord.ReplaceAllString(h, " "+year), nil
}

// yearWord is the placeholder YEAR after a space, as a word.
var yearWord = regexp.MustCompile(` YEAR\b`)

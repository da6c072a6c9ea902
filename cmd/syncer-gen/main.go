package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/syncer-gen/syncer-gen/cmd/syncer-gen/args"
	"github.com/syncer-gen/syncer-gen/generators"
	"github.com/syncer-gen/syncer-gen/internal/output"
	"github.com/syncer-gen/syncer-gen/templates"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // bad markers, packages that do not load, a folder that cannot be written
	exitUsage = 2 // bad flags
)

const usage = `Usage: syncer-gen [flags] PACKAGE_PATTERN...

Generates a typed syncer for every selected Kubernetes API type, into one Go
package per API group and version at <output-dir>/<group>/<version> (<group>:
the +groupGoName in lower case, else the group's first label, "core" for the
core group). Runs can share <output-dir>: each owns the packages generated
from the packages it reads. A type is selected by:
  - a "// +syncer-gen" marker on it;
  - a "// +syncer-gen" marker in its package's doc.go (or groupversion_info.go),
    if it is a +genclient type with list and watch verbs, or a
    +kubebuilder:object:root=true kind with a <Kind>List;
  - a "// +syncer-gen" marker on an alias to it, such as "type Pod = corev1.Pod",
    which is how to give options to a type you cannot annotate;
  - --all-genclient, for every such type of the given packages;
  - --type, by name.

Examples:
  # the types with markers in your API packages
  syncer-gen --output-dir ./pkg/syncers ./api/...

  # from a go:generate line, with a license header
  //go:generate go tool syncer-gen --output-dir ../syncers --go-header-file ../hack/boilerplate.go.txt .

  # every +genclient type of packages you cannot annotate
  syncer-gen --output-dir ./syncers --all-genclient k8s.io/api/core/v1 k8s.io/api/apps/v1

  # a few listed types
  syncer-gen --output-dir ./syncers --type k8s.io/api/core/v1.Pod,k8s.io/api/core/v1.Node

Flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(argv []string, stderr io.Writer) int {
	var a args.Args
	fs := pflag.NewFlagSet("syncer-gen", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	a.AddFlags(fs)
	if err := fs.Parse(argv); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "syncer-gen: %v\nRun syncer-gen --help for usage.\n", err)
		return exitUsage
	}
	a.Patterns = fs.Args()
	if err := a.Validate(); err != nil {
		fmt.Fprintf(stderr, "syncer-gen: %v\nRun syncer-gen --help for usage.\n", err)
		return exitUsage
	}
	if err := generate(&a, stderr); err != nil {
		var list generators.ErrorList
		if errors.As(err, &list) {
			wd, _ := os.Getwd()
			for _, e := range list {
				// Paths under the working folder are shown relative to it.
				if rel, err := filepath.Rel(wd, e.Pos.Filename); err == nil && e.Pos.Filename != "" && !strings.HasPrefix(rel, "..") {
					e.Pos.Filename = rel
				}
				fmt.Fprintln(stderr, e)
			}
			fmt.Fprintf(stderr, "syncer-gen: %d error(s); nothing was written\n", len(list))
		} else {
			fmt.Fprintf(stderr, "syncer-gen: %v\n", err)
		}
		return exitError
	}
	return exitOK
}

// generate runs packages -> markers -> model -> source -> files.
func generate(a *args.Args, stderr io.Writer) error {
	started := time.Now()
	header, err := a.Header()
	if err != nil {
		return err
	}
	model, err := generators.Build(generators.Config{
		Patterns:     a.Patterns,
		Types:        a.Types,
		AllGenclient: a.AllGenclient,
		OutputPkg:    a.OutputPkg,
	})
	if err != nil {
		return err
	}
	built := time.Since(started)
	files, err := templates.Render(model, templates.Options{Header: header})
	if err != nil {
		return err
	}
	for _, w := range model.Warnings {
		fmt.Fprintf(stderr, "syncer-gen: warning: %v\n", w)
	}
	res, err := output.Write(a.OutputDir, files, output.Ownership{Read: model.Read, IsGenerated: isGenerated, Sources: templates.Sources})
	if err != nil {
		return err
	}
	for _, n := range res.Removed {
		if kind, ok := strings.CutSuffix(path.Base(n), "_syncer.go"); ok {
			fmt.Fprintf(stderr, "syncer-gen: warning: removed the syncer of %s in %s: its type is no longer selected (no +%s, +genclient or list and watch verbs)\n",
				kind, path.Dir(n), "syncer-gen")
		}
	}
	if a.Verbose >= 2 {
		for _, n := range res.Written {
			fmt.Fprintf(stderr, "syncer-gen: wrote %s\n", n)
		}
		for _, n := range res.Removed {
			fmt.Fprintf(stderr, "syncer-gen: removed stale %s\n", n)
		}
	}
	if a.Verbose >= 1 {
		n := 0
		for _, p := range model.Packages {
			n += len(p.Resources)
		}
		fmt.Fprintf(stderr, "syncer-gen: %d syncers in %d packages under %s: %d files written, %d unchanged, %d stale removed (read in %s, total %s)\n",
			n, len(model.Packages), a.OutputDir, len(res.Written), len(res.Unchanged), len(res.Removed),
			built.Round(time.Millisecond), time.Since(started).Round(time.Millisecond))
	}
	return nil
}

// isGenerated tells whether a file was written by syncer-gen.
func isGenerated(b []byte) bool {
	return bytes.HasPrefix(b, []byte(templates.GeneratedHeader+"\n"))
}

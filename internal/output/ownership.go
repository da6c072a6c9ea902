package output

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// ErrConflict is wrapped by the error of a run that would write or remove
// an output package generated from packages it does not read: another
// run's.
var ErrConflict = errors.New("output: package owned by another run")

// Ownership says which output packages a run owns. Several runs can share
// one output folder: each output package records, in its doc.go, the
// packages it is generated from, and a run owns the output packages whose
// sources are all among the packages it reads. It rewrites and removes
// those only; packages of other runs are left as they are.
type Ownership struct {
	// Read are the import paths of the packages the run read.
	Read []string
	// IsGenerated tells, from a file's content, whether a generator made it.
	IsGenerated func([]byte) bool
	// Sources returns the sources a package's doc.go records; nil for none
	// (a package written before records were kept: the run that writes
	// into it takes it over, no run removes it).
	Sources func(doc []byte) []string
}

// docFile is the file of an output package that holds its record.
const docFile = "doc.go"

// packageOf returns the output package (folder) of a file path.
func packageOf(name string) string { return path.Dir(name) }

// plan decides, from the generated files already in the folder (path ->
// content) and the files to write, which existing files to remove, and
// fails when the run would write or remove another run's package.
func (o Ownership) plan(existing map[string][]byte, files map[string][]byte) ([]string, error) {
	writes := map[string]bool{}
	for n := range files {
		writes[packageOf(n)] = true
	}
	var remove []string
	var conflicts []string
	decided := map[string]bool{} // package -> removable
	for _, n := range slices.Sorted(maps.Keys(existing)) {
		dir := packageOf(n)
		if _, wanted := files[n]; wanted {
			continue
		}
		removable, seen := decided[dir]
		if !seen {
			var err string
			removable, err = o.owns(dir, existing[path.Join(dir, docFile)], writes[dir])
			decided[dir] = removable
			if err != "" {
				conflicts = append(conflicts, err)
			}
		}
		if removable {
			remove = append(remove, n)
		}
	}
	for dir := range writes {
		if _, seen := decided[dir]; seen {
			continue
		}
		if _, err := o.owns(dir, existing[path.Join(dir, docFile)], true); err != "" {
			conflicts = append(conflicts, err)
		}
	}
	if len(conflicts) > 0 {
		slices.Sort(conflicts)
		return nil, fmt.Errorf("%w:\n  %s", ErrConflict, strings.Join(conflicts, "\n  "))
	}
	return remove, nil
}

// owns tells whether the run may remove the generated files of dir (whose
// doc.go is doc, nil if none) that it does not write, and why it may not
// touch dir at all, if so. write tells whether the run writes into dir.
func (o Ownership) owns(dir string, doc []byte, write bool) (bool, string) {
	var sources []string
	if doc != nil {
		sources = o.Sources(doc)
	}
	var mine, theirs []string
	for _, s := range sources {
		if slices.Contains(o.Read, s) {
			mine = append(mine, s)
		} else {
			theirs = append(theirs, s)
		}
	}
	switch {
	case len(sources) == 0:
		return write, "" // unrecorded: taken over by a run that writes into it
	case len(theirs) == 0:
		return true, ""
	case len(mine) == 0 && !write:
		return false, "" // another run's
	}
	return false, fmt.Sprintf("%s is generated from %s, which this run does not read; generate it from all of its sources in one run, or choose another --output-dir",
		dir, strings.Join(theirs, ", "))
}

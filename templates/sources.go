package templates

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/syncer-gen/syncer-gen/generators"
)

// sourcesPrefix starts the lines of a generated package's doc.go that
// record the packages it is generated from: its ownership record. A run
// owns, and may rewrite or remove, only the output packages generated from
// packages it reads; see internal/output.
const sourcesPrefix = "// syncer-gen input: "

// sourcesComment returns the ownership record of p, one line per source.
func sourcesComment(p *generators.Package) string {
	lines := make([]string, len(p.Sources))
	for i, s := range p.Sources {
		lines[i] = strings.TrimPrefix(sourcesPrefix, "// ") + s
	}
	return strings.Join(lines, "\n")
}

// Sources returns the packages a generated doc.go records as its
// sources, nil when it records none (a file of an older syncer-gen).
func Sources(doc []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "package ") {
			break
		}
		if s, ok := strings.CutPrefix(line, sourcesPrefix); ok {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

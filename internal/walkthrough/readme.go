package walkthrough

import (
	"bufio"
	"fmt"
	"strings"
)

// step is one marked block of the README: commands to run, or a file to write.
type step struct {
	file string // "" for commands
	text string
	line int // of the block's first line in the README
}

const (
	shMark   = "<!-- walkthrough:sh -->"
	filePref = "<!-- walkthrough:file "
)

// steps returns the marked blocks of readme, in order. A mark must be
// followed by a fenced block on the next line.
func steps(readme string) ([]step, error) {
	var out []step
	sc := bufio.NewScanner(strings.NewReader(readme))
	n := 0
	var pending *step
	var inBlock bool
	var body strings.Builder
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case inBlock && strings.HasPrefix(line, "```"):
			pending.text = body.String()
			out = append(out, *pending)
			pending, inBlock = nil, false
		case inBlock:
			body.WriteString(line + "\n")
		case pending != nil:
			if !strings.HasPrefix(line, "```") {
				return nil, fmt.Errorf("README.md:%d: a walkthrough mark must be followed by a fenced block", n-1)
			}
			inBlock, pending.line = true, n+1
			body.Reset()
		case line == shMark:
			pending = &step{}
		case strings.HasPrefix(line, filePref) && strings.HasSuffix(line, " -->"):
			pending = &step{file: strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, filePref), " -->"))}
		}
	}
	if pending != nil {
		return nil, fmt.Errorf("README.md: the last walkthrough block is not closed")
	}
	return out, sc.Err()
}

// script turns steps into one shell script: commands as they are, files
// written with a here-document (relative to the folder the commands are
// in at that point).
func script(steps []step) string {
	var b strings.Builder
	b.WriteString("set -euo pipefail\n")
	for _, s := range steps {
		if s.file == "" {
			fmt.Fprintf(&b, "# README.md:%d\n%s", s.line, s.text)
			continue
		}
		fmt.Fprintf(&b, "# README.md:%d\nmkdir -p \"$(dirname %q)\"\ncat > %q <<'WALKTHROUGH_EOF'\n%sWALKTHROUGH_EOF\n", s.line, s.file, s.file, s.text)
	}
	return b.String()
}

package main

import (
	"fmt"
	"strconv"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// startChild runs contender c in its program (programOf), on the objects o
// names, with extra flags (see child.ParseArgs).
func (b *bench) startChild(c driver.Contender, o options, round int, extra ...string) (*driver.Child, error) {
	prog, err := programOf(c.Name)
	if err != nil {
		return nil, err
	}
	return b.startProgram(prog, c, o, round, extra...)
}

// startProgram runs program prog as contender c.
func (b *bench) startProgram(prog string, c driver.Contender, o options, round int, extra ...string) (*driver.Child, error) {
	bin, ok := b.bins[prog]
	if !ok {
		return nil, fmt.Errorf("program %s not built", prog)
	}
	args := []string{
		"-contender=" + c.Name,
		"-resource=" + o.resource,
		"-namespace=" + o.namespace,
		"-kubeconfig=" + b.kubeconfig,
		"-want=" + strconv.Itoa(o.n),
		"-timeout=" + o.timeout.String(),
	}
	if c.Slow {
		args = append(args, "-slow")
	}
	if o.profileDir != "" {
		args = append(args, "-profile="+o.profileDir, fmt.Sprintf("-tag=%s.r%d", c.Name, round))
	}
	args = append(args, c.Args...)
	return driver.StartProcess(bin, c, append(args, extra...))
}

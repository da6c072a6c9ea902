package main

import (
	"fmt"
	"strconv"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// startChild re-executes this binary as contender c, with extra child flags.
func startChild(exe string, c driver.Contender, o options, kubeconfig string, round int, extra ...string) (*driver.Child, error) {
	args := []string{childCommand,
		"-contender=" + c.Name,
		"-resource=" + o.resource,
		"-namespace=" + o.namespace,
		"-kubeconfig=" + kubeconfig,
		"-want=" + strconv.Itoa(o.n),
		"-timeout=" + o.timeout.String(),
	}
	if o.profileDir != "" {
		args = append(args, "-profile="+o.profileDir, fmt.Sprintf("-tag=%s.r%d", c.Name, round))
	}
	return driver.StartProcess(exe, c, append(args, extra...))
}

package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const module = "github.com/syncer-gen/syncer-gen"

// build compiles the two examples into the temporary folder.
func (d *demo) build(ctx context.Context) error {
	started := time.Now()
	out := filepath.Join(d.dir, "bin")
	names := []string{"builtin", "crd"}
	args := []string{"build", "-o", out + string(filepath.Separator)}
	for _, n := range names {
		args = append(args, module+"/examples/"+n)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, b)
	}
	d.bins = map[string]string{}
	for _, n := range names {
		d.bins[n] = filepath.Join(out, n)
	}
	d.ui.ok("built in %s", time.Since(started).Round(100*time.Millisecond))
	return nil
}

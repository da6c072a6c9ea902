package testbed

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

const modulePath = "module github.com/syncer-gen/syncer-gen"

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// binaries returns the folder holding etcd and kube-apiserver, building
// them with hack/build-testbed.sh when they are missing.
func binaries() (string, error) {
	binOnce.Do(func() {
		root, err := repoRoot()
		if err != nil {
			binErr = err
			return
		}
		binDir = filepath.Join(root, "bin")
		cmd := exec.Command(filepath.Join(root, "hack", "build-testbed.sh"))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			binErr = fmt.Errorf("testbed: hack/build-testbed.sh: %w", err)
		}
	})
	return binDir, binErr
}

// repoRoot finds the syncer-gen module root above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte(modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("testbed: no go.mod with %q above the working directory", modulePath)
		}
		dir = parent
	}
}

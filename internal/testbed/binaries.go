package testbed

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

const modulePath = "module github.com/syncer-gen/syncer-gen"

// VersionEnv names the environment variable that overrides the default
// kube-apiserver version for a whole run, e.g. TESTBED_KUBE_VERSION=v1.36.3
// go test ./... (the version must be one hack/build-testbed.sh builds).
const VersionEnv = "TESTBED_KUBE_VERSION"

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// binaries returns the folder holding etcd and the kube-apiservers, building
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

// DefaultVersion returns the kube-apiserver version tests run against unless
// they ask for another: $TESTBED_KUBE_VERSION, else the first version
// hack/build-testbed.sh builds.
func DefaultVersion() (string, error) {
	if v := os.Getenv(VersionEnv); v != "" {
		return v, nil
	}
	bin, err := binaries()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(bin, "kube-apiserver.default"))
	if err != nil {
		return "", fmt.Errorf("testbed: no default kube-apiserver version (run hack/build-testbed.sh): %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// apiserverBinary returns the path of kube-apiserver at version, or an
// error naming the versions that were built.
func apiserverBinary(bin, version string) (string, error) {
	path := filepath.Join(bin, "kube-apiserver-"+version, "kube-apiserver")
	if _, err := os.Stat(path); err != nil {
		built, _ := filepath.Glob(filepath.Join(bin, "kube-apiserver-v*"))
		for i, b := range built {
			built[i] = strings.TrimPrefix(filepath.Base(b), "kube-apiserver-")
		}
		return "", fmt.Errorf("testbed: kube-apiserver %s is not built (built: %s); add it to KUBE_VERSIONS in hack/build-testbed.sh",
			version, strings.Join(built, ", "))
	}
	return path, nil
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

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
	rootOnce sync.Once
	root     string
	rootErr  error

	builds sync.Map // version -> *build: what hack/build-testbed.sh was asked, once per version
)

type build struct {
	once sync.Once
	err  error
}

// script returns the path of hack/build-testbed.sh and the bin/ folder of
// the syncer-gen module above the working directory.
func script() (path, bin string, err error) {
	rootOnce.Do(func() { root, rootErr = repoRoot() })
	if rootErr != nil {
		return "", "", rootErr
	}
	return filepath.Join(root, "hack", "build-testbed.sh"), filepath.Join(root, "bin"), nil
}

// binaries returns the folder holding etcd and kube-apiserver at version,
// building the two with hack/build-testbed.sh when they are missing (only
// that version: a demo needs one, and make test builds every version up
// front). The script prints its progress on stderr.
func binaries(version string) (string, error) {
	path, bin, err := script()
	if err != nil {
		return "", err
	}
	v, _ := builds.LoadOrStore(version, new(build))
	b := v.(*build)
	b.once.Do(func() {
		cmd := exec.Command(path, version)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			b.err = fmt.Errorf("testbed: hack/build-testbed.sh %s: %w", version, err)
		}
	})
	return bin, b.err
}

// DefaultVersion returns the kube-apiserver version tests run against unless
// they ask for another: $TESTBED_KUBE_VERSION, else the first version
// hack/build-testbed.sh builds.
func DefaultVersion() (string, error) {
	if v := os.Getenv(VersionEnv); v != "" {
		return v, nil
	}
	path, _, err := script()
	if err != nil {
		return "", err
	}
	out, err := exec.Command(path, "--print-default").Output()
	if err != nil {
		return "", fmt.Errorf("testbed: hack/build-testbed.sh --print-default: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
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

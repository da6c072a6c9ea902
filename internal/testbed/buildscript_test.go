package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fakeGo stands in for the go command in hack/build-testbed.sh's test: it
// answers what the script asks of it, and a build sleeps
// $FAKE_GO_BUILD_SECONDS before writing its -o file.
const fakeGo = `#!/usr/bin/env bash
set -euo pipefail
echo "$*" >>"${FAKE_GO_DIR}/calls"
case "$1" in
mod)
	case "$2" in
	init) echo "module $3" >go.mod ;;
	download)
		mkdir -p "${FAKE_GO_DIR}/kubernetes"
		printf 'module k8s.io/kubernetes\n\ngo 1.25.0\n\nreplace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n)\n' >"${FAKE_GO_DIR}/kubernetes/go.mod"
		printf '{\n\t"Path": "k8s.io/kubernetes",\n\t"GoMod": "%s",\n\t"Version": "x"\n}\n' "${FAKE_GO_DIR}/kubernetes/go.mod"
		;;
	esac
	;;
get) ;;
build)
	sleep "${FAKE_GO_BUILD_SECONDS}"
	out=""
	while (($#)); do
		if [[ "$1" == -o ]]; then out="$2"; fi
		shift
	done
	printf '#!/bin/sh\n' >"${out}"
	chmod +x "${out}"
	;;
*) echo "fake go: unexpected $*" >&2; exit 1 ;;
esac
`

// runScript runs hack/build-testbed.sh with args, the fake go first on
// PATH and bin/ in dir, and returns what it printed.
func runScript(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	path, _, err := script()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Join(dir, "fakebin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"FAKE_GO_DIR="+dir,
		"TESTBED_BIN="+filepath.Join(dir, "bin"),
		"KUBE_VERSIONS=v9.1.0 v9.2.0",
		"TESTBED_HEARTBEAT_SECONDS=1",
		"FORCE=",
	)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("build-testbed.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestBuildScriptShowsProgress runs hack/build-testbed.sh with a go command
// that takes seconds to build: it must build etcd and only the version
// asked for, say every heartbeat that it is still building (with the time
// so far and what to expect), remember what the build took, and reuse it.
func TestBuildScriptShowsProgress(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "fakebin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fakebin", "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	slow := []string{"FAKE_GO_BUILD_SECONDS=4"}

	out := runScript(t, dir, slow, "--default")
	for _, want := range []string{
		`(?m)^\[testbed\] building etcd v\S+ \(once, cached in bin/; about .* on two cores\)$`,
		`(?m)^\[testbed\] building kube-apiserver v9\.1\.0 \(once, cached in bin/; about .* on two cores\)$`,
		`(?m)^\[testbed\] built kube-apiserver v9\.1\.0 in 0m0\ds$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	beats := regexp.MustCompile(`(?m)^\[testbed\] still building kube-apiserver v9\.1\.0: 0m0(\d)s so far \(about .* on two cores\)$`).FindAllStringSubmatch(out, -1)
	if len(beats) < 2 {
		t.Errorf("%d heartbeats while kube-apiserver built for 4s with one a second, want 2 or more:\n%s", len(beats), out)
	}
	if strings.Contains(out, "v9.2.0") {
		t.Errorf("--default built another version:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "kube-apiserver-v9.2.0", "kube-apiserver")); err == nil {
		t.Errorf("--default built kube-apiserver v9.2.0")
	}
	for _, f := range []string{"etcd", "kube-apiserver-v9.1.0/kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(dir, "bin", f)); err != nil {
			t.Errorf("not built: %v", err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "bin", "kube-apiserver-v9.1.0", "kube-apiserver.took")); err != nil || !regexp.MustCompile(`^\d+\n$`).Match(b) {
		t.Errorf("kube-apiserver.took = %q, %v; want the build's seconds", b, err)
	}

	// Built: nothing is built again, and no go command runs.
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	out = runScript(t, dir, slow, "v9.1.0")
	if strings.Contains(out, "building") {
		t.Errorf("a built version was built again:\n%s", out)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "calls")); len(again) != len(calls) {
		t.Errorf("go ran for a built version: %s", again[len(calls):])
	}

	// Every version (make test): only the missing one is built.
	out = runScript(t, dir, []string{"FAKE_GO_BUILD_SECONDS=0"})
	if strings.Contains(out, "building etcd") || strings.Contains(out, "building kube-apiserver v9.1.0") ||
		!strings.Contains(out, "building kube-apiserver v9.2.0") {
		t.Errorf("every version: want only v9.2.0 built:\n%s", out)
	}

	// A rebuild expects what the last build took here.
	out = runScript(t, dir, []string{"FAKE_GO_BUILD_SECONDS=0", "FORCE=1"}, "v9.1.0")
	if !regexp.MustCompile(`(?m)^\[testbed\] building kube-apiserver v9\.1\.0 \(once, cached in bin/; its last build here took 0m0\ds\)$`).MatchString(out) {
		t.Errorf("a rebuild does not say what the last build took:\n%s", out)
	}

	if got := strings.TrimSpace(runScript(t, dir, nil, "--print-default")); got != "v9.1.0" {
		t.Errorf("--print-default = %q, want v9.1.0", got)
	}
}

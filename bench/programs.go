package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// The programs the contenders run in, each a binary of its own with only
// what that kind of program imports, so that a contender's RSS holds its
// own code and no other's: the floors (bench/internal/cmd/floor: the
// stream and the API types), ours (the runtime and the generated
// packages), dynamic (the runtime and dynamicsyncer: syncers of resources
// named at run time), client-go (its clientset and informers),
// controller-runtime with its cache and with the syncer, the fleet's
// replicas, and examples/builtin, the node agent. They are built before
// the first run.
const (
	progFloor    = "floor"
	progOurs     = "ours"
	progDynamic  = "dynamic"
	progClientGo = "clientgo"
	progCRCache  = "crcache"
	progCRSyncer = "crsyncer"
	progFleet    = "fleet"
	progBuiltin  = "builtin"
	module       = "github.com/syncer-gen/syncer-gen"
)

var programNames = []string{progFloor, progOurs, progDynamic, progClientGo, progCRCache, progCRSyncer, progFleet, progBuiltin}

// programPackage is the Go package of a program.
func programPackage(name string) string {
	if name == progBuiltin {
		return module + "/examples/builtin"
	}
	return module + "/bench/internal/cmd/" + name
}

// programOf names the program that runs contender name.
func programOf(name string) (string, error) {
	base, _ := strings.CutSuffix(name, noGzip)
	switch {
	case base == floorRead || base == floorDecode || base == keepAll || base == floorWarm || base == floorWarmFile:
		return progFloor, nil
	case base == crCache || base == crMetadata || child.NamedAs(base) == child.CRCacheNamed:
		return progCRCache, nil
	case base == crSyncer:
		return progCRSyncer, nil
	case strings.HasPrefix(base, "client-go"):
		return progClientGo, nil
	case base == oursMetadata || base == oursUnstructured || child.NamedAs(base) == child.OursMetadataGets:
		return progDynamic, nil
	case strings.HasPrefix(base, ours):
		return progOurs, nil
	}
	return "", fmt.Errorf("no program runs contender %q", name)
}

// buildPrograms builds the programs names into dir with go build (its
// cache makes a rebuild of an unchanged tree a matter of seconds), one
// after the other, a line for each, and returns each one's binary by name.
func buildPrograms(ctx context.Context, dir string, names []string) (map[string]string, error) {
	started := time.Now()
	fmt.Fprintf(os.Stderr, "building the contenders' %d programs into %s (go build; the first build of a tree compiles their dependencies: minutes)\n", len(names), dir)
	bins := map[string]string{}
	for i, name := range names {
		t := time.Now()
		bin := filepath.Join(dir, name)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, programPackage(name))
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build -o %s %s: %w\n%s", bin, programPackage(name), err, out)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			return nil, err
		}
		bins[name] = bin
		fmt.Fprintf(os.Stderr, "built %d/%d %-9s %5.1f MiB in %s (%s)\n", i+1, len(names), name, float64(fi.Size())/driver.MiB,
			time.Since(t).Round(100*time.Millisecond), programPackage(name))
	}
	fmt.Fprintf(os.Stderr, "programs built in %s\n", time.Since(started).Round(100*time.Millisecond))
	return bins, nil
}

package ctrlsyncer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	batchv1 "k8s.io/api/batch/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	batchsyncers "github.com/syncer-gen/syncer-gen/examples/ctrl/syncers/batch/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// panicChildEnv, set to "kubeconfig|namespace|way", makes the test binary
// the process of TestFieldIndexerPanicIsTheProgramsAsInTheCache's child:
// a Manager that indexes Jobs with a function that panics, through the
// Manager's cache (way "cache") or a syncer (way "syncer").
const panicChildEnv = "CTRLSYNCER_TEST_PANIC_CHILD"

// A function given to IndexField that panics is the program's: the
// process dies with its panic, as it does with the Manager's cache's
// IndexField, neither recovering it nor serving an index without it.
// Each runs in a child process, whose death is the outcome.
func TestFieldIndexerPanicIsTheProgramsAsInTheCache(t *testing.T) {
	srv, direct, ns := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := direct.Create(ctx, job(ns, "doomed")); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	for _, way := range []string{"cache", "syncer"} {
		t.Run(way, func(t *testing.T) {
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), panicChildEnv+"="+strings.Join([]string{kubeconfig, ns, way}, "|"))
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "panic: the index function's own, for doomed") {
				t.Errorf("the process of a Manager whose index function panics, through the %s: %v; want it dead of the function's panic (exit status 2). Its output:\n%s", way, err, out)
			}
		})
	}
}

// panicChild runs the child of TestFieldIndexerPanicIsTheProgramsAsInTheCache
// if the environment asks for it, and exits: 0 if the Manager ran a
// minute without dying, 1 if it could not be set up.
func panicChild() {
	arg := os.Getenv(panicChildEnv)
	if arg == "" {
		return
	}
	if err := runPanicChild(strings.Split(arg, "|")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("the Manager ran a minute and did not panic")
	os.Exit(0)
}

func runPanicChild(args []string) error {
	kubeconfig, ns, way := args[0], args[1], args[2]
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	s := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: s, Logger: logr.Discard(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	extract := func(o client.Object) []string { panic("the index function's own, for " + o.GetName()) }
	switch way {
	case "cache":
		if err := mgr.GetFieldIndexer().IndexField(ctx, &batchv1.Job{}, jobOwnerKey, extract); err != nil {
			return err
		}
	case "syncer":
		c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)))
		if err != nil {
			return err
		}
		if err := ctrlsyncer.FieldIndexer(mgr).IndexField(ctx, &batchv1.Job{}, jobOwnerKey, extract); err != nil {
			return err
		}
		if _, err := ctrlsyncer.Add(mgr, field(c), batchsyncers.JobSyncerIn); err != nil {
			return err
		}
	}
	return mgr.Start(ctx)
}

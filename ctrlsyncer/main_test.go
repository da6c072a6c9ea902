package ctrlsyncer_test

import (
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard()) // the clients made outside a Manager log nowhere, and say nothing of it
	panicChild()                   // when the test binary is a test's child process
	testbed.Main(m)
}

package testbed

import (
	"os"
	"sync"
	"testing"
)

var (
	sharedMu  sync.Mutex
	shared    *Server
	sharedErr error
	sharedDir string
)

// Shared returns a server shared by every test of the package, started on
// first use. The package's TestMain must call Main so that it is stopped.
func Shared(t testing.TB) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("testbed: needs etcd and kube-apiserver; skipped with -short")
	}
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		sharedDir, sharedErr = os.MkdirTemp("", "testbed-")
		if sharedErr == nil {
			shared, sharedErr = start(sharedDir)
		}

	}
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// Main runs the package's tests and then stops the shared server:
//
//	func TestMain(m *testing.M) { os.Exit(testbed.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.Stop()
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	return code
}

// isShared reports whether s is the package's shared server.
func (s *Server) isShared() bool {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	return s == shared
}

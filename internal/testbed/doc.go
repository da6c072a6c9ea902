// Package testbed starts a real etcd and kube-apiserver on loopback for
// tests, and a proxy that can misbehave in front of them.
//
// The binaries are built from the Go module proxy by hack/build-testbed.sh
// into the repository's bin/ folder; Start runs that script for etcd and the
// version it starts when they are missing (make test builds every version
// up front). Servers run the default version (DefaultVersion, overridden for
// a whole run by $TESTBED_KUBE_VERSION) unless a test asks for another with
// WithKubeVersion. Every process a test starts is stopped in t.Cleanup, and is
// killed by the kernel if the test binary dies first.
//
//	func TestMain(m *testing.M) { os.Exit(testbed.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		srv := testbed.Shared(t) // one server for the package
//		cs := srv.Client()
//		...
//	}
//
// Tests that restart the server or need other flags start their own with
// testbed.Start(t, testbed.WithAPIServerFlags("--feature-gates=WatchList=false")).
package testbed

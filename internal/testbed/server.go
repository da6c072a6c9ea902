package testbed

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Tokens accepted by the test bed's kube-apiserver.
const (
	AdminToken  = "syncer-gen-admin"  // in group system:masters
	NobodyToken = "syncer-gen-nobody" // authenticated, allowed nothing
)

// Option configures Start.
type Option func(*options)

type options struct {
	apiserverFlags []string
	version        string
}

// WithKubeVersion runs kube-apiserver at version (e.g. "v1.36.3") instead of
// DefaultVersion. The version must be one hack/build-testbed.sh builds.
func WithKubeVersion(version string) Option {
	return func(o *options) { o.version = version }
}

// WithAPIServerFlags passes extra flags to kube-apiserver, e.g.
// "--feature-gates=WatchList=false".
func WithAPIServerFlags(flags ...string) Option {
	return func(o *options) { o.apiserverFlags = append(o.apiserverFlags, flags...) }
}

// Server is a running etcd and kube-apiserver.
type Server struct {
	dir          string
	bin          string
	apiserverBin string
	version      string
	etcdURL      string
	port         int
	args         []string
	etcd         *process
	apiserver    *process
	mu           sync.Mutex
	stopped      bool
}

// Start starts etcd and kube-apiserver on free loopback ports in a
// temporary folder and stops them when the test ends. Tests run with
// -short skip here.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("testbed: needs etcd and kube-apiserver; skipped with -short")
	}
	s, err := start(t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func start(dir string, opts ...Option) (*Server, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if o.version == "" {
		var err error
		if o.version, err = DefaultVersion(); err != nil {
			return nil, err
		}
	}
	bin, err := binaries(o.version)
	if err != nil {
		return nil, err
	}
	apiserverBin, err := apiserverBinary(bin, o.version)
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, apiserverBin: apiserverBin, version: o.version}
	if err := s.startEtcd(); err != nil {
		s.Stop()
		return nil, err
	}
	if err := s.prepareAPIServer(o.apiserverFlags); err != nil {
		s.Stop()
		return nil, err
	}
	if err := s.startAPIServer(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) startEtcd() error {
	client, peer := freePort(), freePort()
	s.etcdURL = fmt.Sprintf("http://127.0.0.1:%d", client)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peer)
	p, err := startProcess(s.dir, filepath.Join(s.bin, "etcd"),
		"--name=testbed",
		"--data-dir="+filepath.Join(s.dir, "etcd-data"),
		"--listen-client-urls="+s.etcdURL,
		"--advertise-client-urls="+s.etcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=testbed="+peerURL,
		"--unsafe-no-fsync",
		// etcd's own default quota is 2 GiB; one make bench writes more
		// than that over its parts (history included) and failed with
		// "mvcc: database space exceeded". 8 GiB is etcd's suggested
		// maximum; the file grows only as far as it is used.
		"--quota-backend-bytes=8589934592",
		"--log-level=warn",
	)
	if err != nil {
		return err
	}
	s.etcd = p
	return waitReady(p, 30*time.Second, func() bool {
		resp, err := http.Get(s.etcdURL + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

func (s *Server) prepareAPIServer(extra []string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	keyPath := filepath.Join(s.dir, "sa.key")
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(keyPath, pemKey, 0o600); err != nil {
		return err
	}
	tokens := filepath.Join(s.dir, "tokens.csv")
	csv := AdminToken + ",admin,admin-uid,system:masters\n" + NobodyToken + ",nobody,nobody-uid\n"
	if err := os.WriteFile(tokens, []byte(csv), 0o600); err != nil {
		return err
	}
	s.port = freePort()
	s.args = append([]string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none", // 1.37 refuses a loopback address for the kubernetes Service endpoints
		"--secure-port=" + strconv.Itoa(s.port),
		"--cert-dir=" + filepath.Join(s.dir, "certs"),
		"--etcd-servers=" + s.etcdURL,
		"--etcd-compaction-interval=0",
		"--token-auth-file=" + tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + keyPath,
		"--service-account-signing-key-file=" + keyPath,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--disable-admission-plugins=ServiceAccount",
		"--enable-priority-and-fairness=false",
		"--max-requests-inflight=2000",
		"--max-mutating-requests-inflight=1000",
		"--v=1",
	}, extra...)
	return nil
}

func (s *Server) startAPIServer() error {
	p, err := startProcess(s.dir, s.apiserverBin, s.args...)
	if err != nil {
		return err
	}
	s.apiserver = p
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	defer client.CloseIdleConnections()
	return waitReady(p, 90*time.Second, func() bool {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+AdminToken)
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// URL returns the kube-apiserver's address.
func (s *Server) URL() string { return fmt.Sprintf("https://127.0.0.1:%d", s.port) }

// Version returns the kube-apiserver's version, e.g. "v1.37.2".
func (s *Server) Version() string { return s.version }

// EtcdURL returns etcd's client address.
func (s *Server) EtcdURL() string { return s.etcdURL }

// Config returns a client configuration with admin rights and no client-side
// rate limit worth the name.
func (s *Server) Config() *rest.Config {
	return s.ConfigWithToken(AdminToken)
}

// ConfigWithToken returns a client configuration that authenticates with token.
func (s *Server) ConfigWithToken(token string) *rest.Config {
	return &rest.Config{
		Host:            s.URL(),
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             1000,
		Burst:           2000,
	}
}

// Client returns a clientset with admin rights.
func (s *Server) Client() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(s.Config())
}

// RestartAPIServer stops kube-apiserver and starts it again on the same
// port and etcd; its watch cache starts afresh.
func (s *Server) RestartAPIServer(t testing.TB) {
	t.Helper()
	s.StopAPIServer()
	s.StartAPIServer(t)
}

// StopAPIServer stops kube-apiserver; etcd keeps running.
func (s *Server) StopAPIServer() {
	s.apiserver.stop()
}

// StartAPIServer starts a stopped kube-apiserver again.
func (s *Server) StartAPIServer(t testing.TB) {
	t.Helper()
	if err := s.startAPIServer(); err != nil {
		t.Fatal(err)
	}
}

// Stop stops kube-apiserver and etcd. It is safe to call more than once.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	s.apiserver.stop()
	s.etcd.stop()
}

// waitReady polls ready until it holds, the process dies or d passes.
func waitReady(p *process, d time.Duration, ready func() bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !ready() {
		select {
		case <-p.done:
			return fmt.Errorf("testbed: %s exited while starting; log:\n%s", p.name, p.tail())
		case <-ctx.Done():
			p.stop()
			return fmt.Errorf("testbed: %s not ready after %s; log:\n%s", p.name, d, p.tail())
		case <-tick.C:
		}
	}
	return nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("testbed: no free port: %v", err))
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

package runtime_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/rest"
)

// TestServerVersions proves the syncer against each kube-apiserver version
// the test bed builds: 1.37, whose WatchList responses are gzip-compressed
// (WatchListCompression, on by default) for a syncer WithCompression and
// plain for one by default, 1.37 with the gate off, 1.36, and the fallback
// to LIST + WATCH where WatchList is off. Each case syncs a
// namespace while a writer creates, updates and deletes in it, and is
// checked as the consistency test checks its faults: the store and the
// state rebuilt from handler calls equal a quorum LIST, no handler call
// broke the contract. What compression did is read off the wire: a
// response the HTTP transport decompressed says so (Response.Uncompressed),
// any other gzip response by its Content-Encoding.
func TestServerVersions(t *testing.T) {
	def, err := testbed.DefaultVersion()
	if err != nil {
		t.Fatal(err)
	}
	const gateOff = "--feature-gates=WatchList=false"
	for _, tc := range []struct {
		version string
		flag    string
		mode    runtime.Mode
		gzip    bool // WatchList responses come gzip-compressed
		opts    []runtime.Option
	}{
		{"v1.37.2", "", runtime.ModeWatchList, false, nil},
		{"v1.37.2", "", runtime.ModeWatchList, true, []runtime.Option{runtime.WithCompression()}},
		{"v1.37.2", "--feature-gates=WatchListCompression=false", runtime.ModeWatchList, false, nil},
		{"v1.36.3", "", runtime.ModeWatchList, false, nil},
		{"v1.37.2", gateOff, runtime.ModeList, false, nil},
		{"v1.36.3", gateOff, runtime.ModeList, false, nil},
	} {
		name := tc.version
		if tc.flag != "" {
			name += "+" + strings.TrimPrefix(tc.flag, "--feature-gates=")
		}
		if tc.opts != nil {
			name += "+WithCompression"
		}
		t.Run(name, func(t *testing.T) {
			var srv *testbed.Server
			switch {
			case tc.flag == gateOff && tc.version == def:
				t.Skip("the default version's fallback is TestConsistencyUnderFaults/WatchListGateOff and TestFallbackWhenGateOff")
			case tc.flag == "" && tc.version == def:
				srv = testbed.Shared(t)
			case tc.flag == "":
				srv = testbed.Start(t, testbed.WithKubeVersion(tc.version))
			default:
				srv = testbed.Start(t, testbed.WithKubeVersion(tc.version), testbed.WithAPIServerFlags(tc.flag))
			}
			if srv.Version() != tc.version {
				t.Fatalf("server version %s, want %s", srv.Version(), tc.version)
			}
			f := prepare(t, srv, 2000, 1024)
			w := testbed.StartWriter(t, srv.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, Population: 2000})
			eventually(t, 10*time.Second, "the writer to start", func() bool { return w.Stats().Writes() > 0 })
			cfg, wire := recordWatchListEncoding(srv.Config())
			before, start := w.Stats().Writes(), time.Now()
			s, c, stop := startChecked(t, cfg, f.ns, append(tc.opts, faultOptions...)...)
			waitSynced(t, s, c, "against "+name+", with writes flowing", nil)
			during := w.Stats().Writes() - before
			f.finish(t, s, c, stop, w, start, func(testbed.WriterStats) {
				if during == 0 {
					t.Error("no write completed during the initial sync")
				}
				if s.Mode() != tc.mode {
					t.Errorf("Mode() = %s, want %s", s.Mode(), tc.mode)
				}
				gzipped, plain := wire()
				t.Logf("%s: %d writes during the initial sync; WatchList responses: %d gzip, %d plain",
					name, during, gzipped, plain)
				switch {
				case tc.mode == runtime.ModeList:
				case tc.gzip && (gzipped == 0 || plain > 0), !tc.gzip && (plain == 0 || gzipped > 0):
					t.Errorf("WatchList responses: %d gzip, %d plain; want gzip %t", gzipped, plain, tc.gzip)
				}
			})
		})
	}
}

// recordWatchListEncoding returns cfg with a transport wrapper that counts
// the successful WatchList responses that came gzip-compressed (which the
// HTTP transport decompressed, having asked for gzip itself, or not, when
// the request said which encodings it accepts) and plain.
func recordWatchListEncoding(cfg *rest.Config) (*rest.Config, func() (gzipped, plain int)) {
	var mu sync.Mutex
	var gzipped, plain int
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err == nil && resp.StatusCode == http.StatusOK && req.URL.Query().Get("sendInitialEvents") == "true" {
				mu.Lock()
				if resp.Uncompressed || resp.Header.Get("Content-Encoding") == "gzip" {
					gzipped++
				} else {
					plain++
				}
				mu.Unlock()
			}
			return resp, err
		})
	}
	return cfg, func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return gzipped, plain
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

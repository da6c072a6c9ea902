package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// cert is a custom resource whose schema accepts what its Go type refuses,
// as cert-manager's Certificate takes `duration: ""` into a
// metav1.Duration.
type cert struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              certSpec `json:"spec"`
}

type certSpec struct {
	Duration metav1.Duration `json:"duration"`
	N        int             `json:"n"`
}

func (o *cert) DeepCopyObject() kruntime.Object { c := *o; return &c }

type certList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []cert `json:"items"`
}

func (l *certList) DeepCopyObject() kruntime.Object { c := *l; return &c }

var certs = runtime.Resource{Group: "undecodable.example.com", Version: "v1", Resource: "certs", Kind: "Cert", Namespaced: true,
	NewList: func() kruntime.Object { return &certList{} }}

// certBed is a namespace of certs with writes flowing to the good ones.
type certBed struct {
	srv *testbed.Server
	ns  string
	dyn dynamic.ResourceInterface
}

func newCertBed(t *testing.T, srv *testbed.Server, n int) *certBed {
	srv.InstallCRD(t, freeSpecCRD(certs.Group, certs.Resource, certs.Kind))
	b := &certBed{srv: srv, ns: srv.Namespace(t)}
	b.dyn = dynamic.NewForConfigOrDie(srv.Config()).Resource(schema.GroupVersionResource{Group: certs.Group, Version: "v1", Resource: "certs"}).Namespace(b.ns)
	for i := range n {
		b.set(t, fmt.Sprint("c", i), "1h", 0)
	}
	return b
}

// set creates or updates the cert name with duration d.
func (b *certBed) set(t *testing.T, name, d string, n int) {
	t.Helper()
	ctx := context.Background()
	spec := map[string]any{"duration": d, "n": int64(n)}
	u, err := b.dyn.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		u = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "undecodable.example.com/v1", "kind": "Cert",
			"metadata": map[string]any{"name": name}, "spec": spec}}
		if _, err := b.dyn.Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	u.Object["spec"] = spec
	if _, err := b.dyn.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// write updates the good certs c0..c(n-1) but spare about rate times a
// second until stop is closed.
func (b *certBed) write(t *testing.T, n, rate int, spare string) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			name := fmt.Sprint("c", rand.IntN(n))
			if name == spare {
				continue
			}
			u, err := b.dyn.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				continue
			}
			u.Object["spec"] = map[string]any{"duration": "1h", "n": int64(i)}
			b.dyn.Update(context.Background(), u, metav1.UpdateOptions{}) // a conflict is a write skipped
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); <-exited }) }
}

// server returns the name -> resourceVersion of every cert, read by a
// quorum LIST.
func (b *certBed) server(t *testing.T) map[string]string {
	t.Helper()
	l, err := b.dyn.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, u := range l.Items {
		out[u.GetName()] = u.GetResourceVersion()
	}
	return out
}

// undecodableSeen collects the objects reported undecodable.
type undecodableSeen struct {
	mu    sync.Mutex
	names map[string]int
}

func (u *undecodableSeen) handler() runtime.HandlerFuncs[*cert] {
	return runtime.HandlerFuncs[*cert]{ErrorFunc: func(err error) {
		var bad *runtime.ObjectDecodeError
		if errors.As(err, &bad) && runtime.Classify(err) == runtime.KindUndecodable {
			u.mu.Lock()
			u.names[bad.Name]++
			u.mu.Unlock()
		}
	}}
}

func (u *undecodableSeen) count(name string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.names[name]
}

func startCerts(t *testing.T, b *certBed, opts ...runtime.Option) (*runtime.Syncer[*cert], *undecodableSeen, func()) {
	t.Helper()
	s, err := runtime.New[*cert](b.srv.Config(), certs, append(opts, runtime.WithNamespace(b.ns))...)
	if err != nil {
		t.Fatal(err)
	}
	seen := &undecodableSeen{names: map[string]int{}}
	s.AddHandler(seen.handler())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	if err := s.WaitForSync(wctx); err != nil {
		cancel()
		t.Fatalf("not synced with an undecodable object: %v (last error: %v)", err, s.LastError())
	}
	return s, seen, func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// stored returns the name -> resourceVersion of s's store.
func stored(s *runtime.Syncer[*cert]) map[string]string {
	out := map[string]string{}
	for _, o := range s.Store().List() {
		out[o.Name] = o.ResourceVersion
	}
	return out
}

// One object the Go type cannot decode does not stall the syncer: with
// writes flowing to the others, it syncs, reports the object by name once
// per version, keeps the last version of an object that decoded, and takes
// the object in once a version decodes; at the end the store equals a
// quorum LIST. With WatchList (1.37) and with paginated LIST + WATCH (the
// gate off), and on a warm start whose snapshot object turned undecodable
// while the syncer was down.
func TestUndecodableObjectDoesNotStallTheSyncer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		mode  runtime.Mode
	}{
		{"WatchList", nil, runtime.ModeWatchList},
		{"ListAndWatch", []string{"--feature-gates=WatchList=false"}, runtime.ModeList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := testbed.Shared(t)
			if tc.flags != nil {
				srv = testbed.Start(t, testbed.WithAPIServerFlags(tc.flags...))
			}
			const good = 40
			b := newCertBed(t, srv, good)
			b.set(t, "bad", "", 0) // undecodable from the start
			// c1 is left alone: the test knows its last good version.
			stopWrites := b.write(t, good, 100, "c1")
			defer stopWrites()
			path := filepath.Join(t.TempDir(), "certs.snapshot")
			s, seen, stop := startCerts(t, b, runtime.WithPageSize(10), runtime.WithSnapshot(path))
			if s.Mode() != tc.mode {
				t.Errorf("mode %s, want %s", s.Mode(), tc.mode)
			}
			if _, ok := stored(s)["bad"]; ok || seen.count("bad") == 0 {
				t.Fatalf("bad: stored %v, reported %d times; want not stored, reported", ok, seen.count("bad"))
			}
			// A stored object turns undecodable: its last good version stays.
			kept := stored(s)["c1"]
			b.set(t, "c1", "", 1)
			eventually(t, 20*time.Second, "c1's undecodable version reported", func() bool { return seen.count("c1") == 1 })
			if got := stored(s)["c1"]; got != kept {
				t.Errorf("c1 stored at %q after an undecodable version, want its last good version %q", got, kept)
			}
			// Versions that decode are taken in.
			b.set(t, "bad", "2s", 2)
			b.set(t, "c1", "3s", 3)
			stopWrites()
			eventually(t, 20*time.Second, "the store to equal a quorum LIST", func() bool {
				return fmt.Sprint(stored(s)) == fmt.Sprint(b.server(t))
			})
			if n := seen.count("bad"); n != 1 {
				t.Errorf("bad reported %d times, want once (one version)", n)
			}
			stop()

			// A warm start whose snapshot's c2 turned undecodable meanwhile.
			b.set(t, "c2", "", 4)
			s2, seen2, stop2 := startCerts(t, b, runtime.WithPageSize(10), runtime.WithSnapshot(path))
			defer stop2()
			if s2.Mode() != runtime.ModeWarm {
				t.Errorf("restart: mode %s, want warm", s2.Mode())
			}
			want := b.server(t)
			for name, rv := range stored(s2) {
				if name != "c2" && want[name] != rv {
					t.Errorf("restart: %s at %s, the server has %s", name, rv, want[name])
				}
			}
			if _, ok := stored(s2)["c2"]; !ok || seen2.count("c2") != 1 || len(stored(s2)) != len(want) {
				t.Errorf("restart: c2 stored %v (its last good version), reported %d times; %d objects, the server has %d",
					ok, seen2.count("c2"), len(stored(s2)), len(want))
			}
		})
	}
}

package dynamicsyncer_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// configMaps is the Resource of ConfigMaps as a program writes it by hand.
var configMaps = runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// start runs s until the test ends, or until stop is called (which waits
// for Run to return, so that a snapshot is saved), and waits for its sync.
func start[T runtime.Object](t *testing.T, s *runtime.Syncer[T]) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	if err := s.WaitForSync(wctx); err != nil {
		t.Fatalf("no sync: %v (last error: %v)", err, s.LastError())
	}
	return stop
}

// eventually polls diff until it says nothing, for a minute at most.
func eventually(t *testing.T, what string, diff func() string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		d := diff()
		if d == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkAsked says which of reqs, the requests of a metadata-only syncer of
// resource (a path's last part), did not ask for PartialObjectMetadata: a
// LIST for a PartialObjectMetadataList, a watch or a GET for
// PartialObjectMetadata; "" when all did, and there were some. A sharded
// syncer's LIST of one object is whole: its list tells the shard.
func checkAsked(reqs []testbed.Request, resource string, sharded bool) string {
	n := 0
	for _, r := range reqs {
		collection := strings.HasSuffix(r.Path, "/"+resource)
		if !collection && !strings.Contains(r.Path, "/"+resource+"/") {
			continue
		}
		n++
		want := "PartialObjectMetadata"
		if collection && !r.Watch() {
			want = "PartialObjectMetadataList"
			if sharded && r.Query.Get("limit") == "1" {
				continue
			}
		}
		if got := r.AsksFor(); got != want {
			return fmt.Sprintf("%s %s?%s asked for %q, not %s", r.Method, r.Path, r.Query.Encode(), got, want)
		}
	}
	if n == 0 {
		return "no request of " + resource
	}
	return ""
}

// responseBytes returns the bytes of the responses in reqs.
func responseBytes(reqs []testbed.Request) (n int64) {
	for _, r := range reqs {
		n += r.Bytes
	}
	return n
}

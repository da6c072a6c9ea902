package testbed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
)

// Compact compacts etcd's history up to its current revision, through
// etcd's JSON gateway, and returns that revision. Watches and lists from an
// older resourceVersion that reach etcd then answer 410 Gone.
func (s *Server) Compact(t testing.TB) int64 {
	t.Helper()
	var rng struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	if err := s.etcdPost("/v3/kv/range", map[string]any{"key": "AA=="}, &rng); err != nil {
		t.Fatal(err)
	}
	rev, err := strconv.ParseInt(rng.Header.Revision, 10, 64)
	if err != nil {
		t.Fatalf("testbed: etcd revision %q: %v", rng.Header.Revision, err)
	}
	if err := s.etcdPost("/v3/kv/compaction", map[string]any{"revision": rev, "physical": true}, nil); err != nil {
		t.Fatal(err)
	}
	return rev
}

func (s *Server) etcdPost(path string, body any, out any) error {
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.etcdURL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("testbed: etcd %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("testbed: etcd %s: %s", path, resp.Status)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

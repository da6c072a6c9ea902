package snapshotfile

import (
	"errors"
	"fmt"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A warm start waited for the snapshot's objects to be decoded one after
// the other on one core (issue 44): Read decodes them on every core, and
// still returns them in the file's order, and names the first object that
// does not decode.
func TestReadDecodesOnEveryCore(t *testing.T) {
	if goruntime.GOMAXPROCS(0) < 2 {
		t.Skip("one core")
	}
	path := filepath.Join(t.TempDir(), "s")
	objs := testObjects(5000) // batches of batchBytes: several
	for _, o := range objs {
		o.Data["pad"] = strings.Repeat("x", 300)
	}
	if _, err := Write(path, testHeader(), testCodec, objs); err != nil {
		t.Fatal(err)
	}
	// The first calls wait (up to a deadline each) for another to be
	// under way at the same time: decoded one by one, they wait in vain.
	var mu sync.Mutex
	inFlight, together, waits := 0, 0, 0
	codec := testCodec
	codec.Decode = func(b []byte) (*corev1.ConfigMap, error) {
		mu.Lock()
		inFlight++
		if inFlight > 1 {
			together++
		}
		wait := together == 0 && waits < 3
		waits++
		mu.Unlock()
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		for deadline := time.Now().Add(200 * time.Millisecond); wait && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			mu.Lock()
			wait = together == 0
			mu.Unlock()
		}
		return testCodec.Decode(b)
	}
	got, _, err := Read(path, testHeader(), codec)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if together == 0 {
		t.Error("no two objects were decoded at the same time")
	}
	for i, o := range got {
		if o.Name != objs[i].Name {
			t.Fatalf("object %d is %s, want %s: not the file's order", i, o.Name, objs[i].Name)
		}
	}

	bad := testCodec
	bad.Decode = func(b []byte) (*corev1.ConfigMap, error) {
		o, err := testCodec.Decode(b)
		if err == nil && (o.Name == "cm-4000" || o.Name == "cm-1234") {
			return nil, errors.New("undecodable")
		}
		return o, err
	}
	if _, _, err := Read(path, testHeader(), bad); err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("object %d: undecodable", 1235)) {
		t.Errorf("Read: %v; want the first object that failed, 1235", err)
	}
}

package progress

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// Follow draws what the syncer counted, with its estimate as the total,
// and returns once the sync has finished.
func TestFollowDrawsTheSyncersProgress(t *testing.T) {
	var out bytes.Buffer
	b := New(&out, "syncing widgets", -1, WithTerminal(false))
	started := time.Now()
	steps := []runtime.Progress{
		{Received: 0, Estimate: -1, Started: started},
		{Received: 30, Estimate: 100, Started: started},
		{Received: 60, Estimate: 100, Started: started},
		{Received: 100, Estimate: 100, Started: started, Finished: started.Add(time.Second)},
	}
	i := 0
	next := func() runtime.Progress {
		p := steps[min(i, len(steps)-1)]
		i++
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	Follow(ctx, b, next, time.Millisecond)
	if ctx.Err() != nil {
		t.Fatal("Follow did not return when the sync finished")
	}
	if i != len(steps) {
		t.Errorf("Follow read Progress %d times, want %d (until Finished)", i, len(steps))
	}
	b.Finish()
	want := "syncing widgets: 30/100 (30%)\nsyncing widgets: 60/100 (60%)\nsyncing widgets: 100/100 (100%)\nsyncing widgets: 100/100 (100%) done in"
	if got := out.String(); !strings.HasPrefix(got, want) {
		t.Errorf("output:\n%s\nwant it to start with:\n%s", got, want)
	}
}

package driver

import (
	"context"
	"fmt"
	"time"
)

// pollInterval is how often pollUntil checks; small against sync times of
// seconds, cheap against the CPU of a sync.
const pollInterval = time.Millisecond

// PollUntil checks cond until it holds, ctx is done or timeout passes.
func PollUntil(ctx context.Context, timeout time.Duration, cond func() bool) error {
	if cond() {
		return nil
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("not synced after %s", timeout)
		case <-tick.C:
			if cond() {
				return nil
			}
		}
	}
}

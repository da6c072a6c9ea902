package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// writeUpdates writes o.rate updates a second for o.duration, cycling over
// the first o.steadyPool objects; each update sets writtenAtAnnotation to the
// time it is sent. It returns how many writes succeeded and how long handing
// them out to the writers took, which is longer than o.duration when the
// server cannot keep up, unless o.writeFor caps it: then it stops handing
// them out after that long, fewer than asked (a slope phase: its rate is
// the one achieved).
func writeUpdates(ctx context.Context, cs kubernetes.Interface, o options, res resource) (int, time.Duration, error) {
	total := int(float64(o.rate) * o.duration.Seconds())
	pool := min(o.steadyPool, o.n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tokens := make(chan int, o.steadyWriters)
	var ok atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range o.steadyWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range tokens {
				body := res.stamp(child.FormatNanos(time.Now().UnixNano()))
				err := cs.CoreV1().RESTClient().Patch(types.MergePatchType).Namespace(o.namespace).
					Resource(res.plural).Name(objectName(i % pool)).Body([]byte(body)).
					Timeout(30 * time.Second).Do(ctx).Error()
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("update %s: %w", objectName(i%pool), err); cancel() })
					return
				}
				ok.Add(1)
			}
		}()
	}
	started := time.Now()
	tick := time.NewTicker(time.Second / time.Duration(o.rate))
feed:
	for i := range total {
		if o.writeFor > 0 && time.Since(started) >= o.writeFor {
			break
		}
		select {
		case <-ctx.Done():
			break feed
		case <-tick.C:
		}
		select {
		case tokens <- i:
		case <-ctx.Done():
			break feed
		}
	}
	tick.Stop()
	took := time.Since(started) // the pace of writing, not the last reply
	close(tokens)
	wg.Wait()
	if firstErr != nil {
		return int(ok.Load()), took, firstErr
	}
	return int(ok.Load()), took, ctx.Err()
}

// stamp is the merge patch of an update written at nanos: writtenAtAnnotation
// set to it, in the annotations or, with stampLabel, the labels.
func (r resource) stamp(nanos string) string {
	in := "annotations"
	if r.stampLabel {
		in = "labels"
	}
	return fmt.Sprintf(`{"metadata":{%q:{%q:%q}}}`, in, writtenAtAnnotation, nanos)
}

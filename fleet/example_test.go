package fleet_test

import (
	"context"
	"fmt"
	"time"

	"github.com/syncer-gen/syncer-gen/fleet"
)

// Three replicas of a program share eight shards: 3, 3 and 2. One stops,
// and the other two take its shards at once: 4 and 4. Each replica would
// be a process of its own, made with fleet.New(restConfig, ...); here they
// share an in-memory Lease store (fakeLeases, client-go's fake clientset
// with conditional writes) so that the example runs without a server.
func Example() {
	leases := fakeLeases() // in a program: kubernetes.NewForConfigOrDie(cfg).CoordinationV1()
	ids := []string{"replica-a", "replica-b", "replica-c"}
	fleets := map[string]*fleet.Fleet{}
	stop := map[string]func(){}
	for _, id := range ids {
		f, err := fleet.NewForClient(leases, fleet.Options{
			Name: "widget-controller", Namespace: "kube-system", Identity: id, Shards: 8,
			LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond,
		})
		if err != nil {
			panic(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			done <- f.Run(ctx, func(ctx context.Context, shard int) error {
				// Run the shard's syncer (runtime.WithShard(shard, 8)) and
				// workers until ctx is done.
				<-ctx.Done()
				return nil
			})
		}()
		fleets[id], stop[id] = f, func() { cancel(); <-done }
	}
	// settled waits until the replicas hold every shard once, want[i] each.
	settled := func(ids []string, want ...int) {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			held := map[int]bool{}
			ok := true
			for i, id := range ids {
				shards := fleets[id].Held()
				ok = ok && len(shards) == want[i]
				for _, s := range shards {
					held[s] = true
				}
			}
			if ok && len(held) == 8 {
				break
			}
		}
		for _, id := range ids {
			fmt.Println(id, "holds", len(fleets[id].Held()), "shards")
		}
	}

	settled(ids, 3, 3, 2)
	stop["replica-b"]()
	fmt.Println("replica-b stopped")
	settled([]string{"replica-a", "replica-c"}, 4, 4)
	stop["replica-a"]()
	stop["replica-c"]()
	// Output:
	// replica-a holds 3 shards
	// replica-b holds 3 shards
	// replica-c holds 2 shards
	// replica-b stopped
	// replica-a holds 4 shards
	// replica-c holds 4 shards
}

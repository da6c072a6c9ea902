package fleet

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
)

func TestQuotaIsFloorOrCeilAndAddsUp(t *testing.T) {
	for n := 1; n <= 17; n++ {
		for k := 1; k <= 9; k++ {
			var members []string
			for i := range k {
				members = append(members, fmt.Sprintf("r-%02d", i))
			}
			sum := 0
			for _, m := range members {
				q := quota(n, members, m)
				if q != n/k && q != (n+k-1)/k {
					t.Errorf("n=%d k=%d: quota(%s)=%d, want floor or ceil", n, k, m, q)
				}
				sum += q
			}
			if sum != n {
				t.Errorf("n=%d k=%d: quotas add up to %d", n, k, sum)
			}
		}
	}
	if q := quota(8, []string{"a", "b"}, "zz"); q != 4 {
		t.Errorf("a replica that does not see itself among the members gets %d, want the smallest quota 4", q)
	}
}

func TestPreferenceIsAStablePermutationThatDiffersByIdentity(t *testing.T) {
	a, b := preference(8, "replica-a"), preference(8, "replica-b")
	if !slices.Equal(a, preference(8, "replica-a")) {
		t.Fatal("preference is not stable")
	}
	s := slices.Clone(a)
	slices.Sort(s)
	if !slices.Equal(s, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Fatalf("preference(8) = %v, not a permutation", a)
	}
	if slices.Equal(a, b) {
		t.Errorf("two identities prefer the same order %v", a)
	}
	// Over many identities, every shard comes first about as often.
	first := make([]int, 8)
	for i := range 800 {
		first[preference(8, fmt.Sprintf("pod-%d", i))[0]]++
	}
	for s, n := range first {
		if n < 50 || n > 150 {
			t.Errorf("shard %d is the first choice of %d of 800 identities, want about 100", s, n)
		}
	}
}

// simulate plays the rules of round on a model of the fleet, in a random
// order each round, with members joining and dying: it converges to
// floor/ceil with every shard held once whatever the order, because
// quotas depend on the members alone.
func TestQuotaRulesConvergeInAnyOrder(t *testing.T) {
	const n = 8
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		holder := make([]string, n) // "" free
		live := []string{"a", "b", "c"}
		steps := []func(){
			func() { live = append(live, "d") },                                                // join: 3 -> 4
			func() { live = slices.DeleteFunc(live, func(s string) bool { return s == "b" }) }, // b dies: 4 -> 3
			func() { live = slices.DeleteFunc(live, func(s string) bool { return s == "d" }) }, // d dies: 3 -> 2
		}
		for step := 0; step <= len(steps); step++ {
			// A dead member's shards expire.
			for s, h := range holder {
				if h != "" && !slices.Contains(live, h) {
					holder[s] = ""
				}
			}
			rounds := 0
			for ; rounds < 10 && !balancedModel(holder, live); rounds++ {
				for _, i := range rng.Perm(len(live)) {
					id := live[i]
					members := slices.Sorted(slices.Values(live))
					q := quota(n, members, id)
					var held []int
					for _, s := range preference(n, id) {
						if holder[s] == id {
							held = append(held, s)
						}
					}
					if len(held) > q {
						for _, s := range held[q:] {
							holder[s] = ""
						}
						continue
					}
					for _, s := range preference(n, id) {
						if len(held) < q && holder[s] == "" {
							holder[s] = id
							held = append(held, s)
						}
					}
				}
			}
			if !balancedModel(holder, live) {
				t.Fatalf("trial %d step %d: not balanced after 10 rounds: %v over %v", trial, step, holder, live)
			}
			if rounds > 2 {
				t.Fatalf("trial %d step %d: took %d rounds", trial, step, rounds)
			}
			if step < len(steps) {
				steps[step]()
			}
		}
	}
}

func balancedModel(holder []string, live []string) bool {
	count := map[string]int{}
	for _, h := range holder {
		if h == "" {
			return false
		}
		count[h]++
	}
	n, k := len(holder), len(live)
	for _, id := range live {
		if c := count[id]; c < n/k || c > (n+k-1)/k {
			return false
		}
	}
	return true
}

func TestOptionsAreChecked(t *testing.T) {
	good := Options{Name: "widgets", Namespace: "default", Identity: "pod-0", Shards: 8}
	if _, err := NewForClient(fake.NewClientset().CoordinationV1(), good); err != nil {
		t.Fatalf("good options: %v", err)
	}
	for _, c := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.Name = "" }, "Name is empty"},
		{func(o *Options) { o.Name = "Not_A/Label" }, "not a valid label value"},
		{func(o *Options) { o.Identity = "Pod_0" }, "Lease name"},
		{func(o *Options) { o.Shards = 0 }, "Shards is 0"},
		{func(o *Options) { o.LeaseDuration = 2500 * time.Millisecond }, "whole number of seconds"},
		{func(o *Options) { o.RenewDeadline = 15 * time.Second }, "shorter than LeaseDuration"},
		{func(o *Options) { o.RetryPeriod = 9 * time.Second }, "RetryPeriods"},
	} {
		o := good
		c.change(&o)
		if err := o.withDefaults().validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", o, err, c.want)
		}
	}
}

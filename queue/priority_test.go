package queue_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/queue"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
)

func newPriority() *queue.Priority[string] {
	return queue.NewPriority(workqueue.DefaultTypedControllerRateLimiter[string]())
}

// next takes n keys in the order the queue gives them, marking each done.
func next(q workqueue.TypedInterface[string], n int) []string {
	var got []string
	for range n {
		k, _ := q.Get()
		got = append(got, k)
		q.Done(k)
	}
	return got
}

// Keys added low come after every key added high, each level in the order
// of its adds; a low key added high moves to the end of the high level; a
// high key added low stays high; a key is queued once.
func TestPriorityLevels(t *testing.T) {
	q := newPriority()
	defer q.ShutDown()
	q.AddLow("l1")
	q.Add("h1")
	q.AddLow("l2")
	q.AddLow("l3")
	q.Add("h2")
	q.Add("l2")    // moves up, behind h2
	q.AddLow("h1") // stays high
	q.AddLow("l1") // already waiting low
	if n := q.Len(); n != 5 {
		t.Errorf("Len %d, want 5", n)
	}
	if got := fmt.Sprint(next(q, 5)); got != "[h1 h2 l2 l1 l3]" {
		t.Errorf("order %s", got)
	}
}

// A key added while it is being processed is queued again when Done, at
// the highest level asked for meanwhile; AddRateLimited and AddAfter come
// back high.
func TestPriorityWhileProcessing(t *testing.T) {
	q := newPriority()
	defer q.ShutDown()
	q.AddLow("a")
	q.AddLow("b")
	q.AddLow("other")
	a, _ := q.Get()
	b, _ := q.Get()
	q.AddLow(a) // low only
	q.AddLow(b) // low, then high
	q.Add(b)
	if q.Len() != 1 {
		t.Fatalf("keys being processed are queued already: Len %d", q.Len())
	}
	q.Done(a)
	q.Done(b)
	if got := fmt.Sprint(next(q, 3)); got != "[b other a]" {
		t.Errorf("order %s, want b (added high while processed) first", got)
	}
	q.AddLow("low")
	q.AddAfter("later", time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for q.Len() < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // polling interval
	}
	if got := fmt.Sprint(next(q, 2)); got != "[later low]" {
		t.Errorf("order %s, want AddAfter's key high", got)
	}
}

// Many goroutines adding the same keys at both levels while workers take
// them: every key added is processed, and nothing is left queued.
func TestPriorityConcurrentAdds(t *testing.T) {
	q := newPriority()
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]bool{}
	for range 2 {
		wg.Go(func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				mu.Lock()
				seen[k] = true
				mu.Unlock()
				q.Done(k)
			}
		})
	}
	var adders sync.WaitGroup
	for w := range 4 {
		adders.Go(func() {
			for i := range 2000 {
				k := fmt.Sprint("k", i%100)
				if (i+w)%2 == 0 {
					q.Add(k)
				} else {
					q.AddLow(k)
				}
			}
		})
	}
	adders.Wait()
	q.ShutDownWithDrain()
	wg.Wait()
	if len(seen) != 100 || q.Len() != 0 {
		t.Errorf("%d keys processed, %d left; want 100, 0", len(seen), q.Len())
	}
}

// Enqueue into a Priority queue: the objects of the initial list go low,
// a live add and a live update high, a resync period's update (old and new
// at the same resourceVersion) low, a deletion high. Into a plain queue,
// every key goes to Add.
func TestEnqueueGivesTheInitialListLowPriority(t *testing.T) {
	q := queue.NewPriority(workqueue.DefaultTypedControllerRateLimiter[runtime.Key]())
	defer q.ShutDown()
	s, d := runtime.NewDriver[*corev1.Pod](pods)
	s.AddHandler(queue.Enqueue(q, queue.ObjectKey[*corev1.Pod]))
	d.Add(pod("a", "1"), pod("b", "2"), pod("c", "3"))
	d.Sync()
	d.Add(pod("new", "4"))
	d.Update(pod("c", "5"))
	if got := fmt.Sprint(nextKeys(q, 4)); got != "[new c a b]" {
		t.Errorf("order %s, want the live changes (new, c) before the initial list", got)
	}

	h := queue.Enqueue(q, queue.ObjectKey[*corev1.Pod])
	h.OnUpdate(pod("r", "6"), pod("r", "6")) // a resync period's
	h.OnDelete(pod("gone", "7"), runtime.DeletionObserved)
	h.(runtime.InitialAdder[*corev1.Pod]).OnInitialAdd(pod("listed", "8"))
	h.OnUpdate(pod("u", "8"), pod("u", "9"))
	if got := fmt.Sprint(nextKeys(q, 4)); got != "[gone u r listed]" {
		t.Errorf("order %s, want the deletion and the update before the resync and the listed add", got)
	}

	s2, d2 := runtime.NewDriver[*corev1.Pod](pods)
	plain := workqueue.NewTyped[runtime.Key]()
	defer plain.ShutDown()
	s2.AddHandler(queue.Enqueue(plain, queue.ObjectKey[*corev1.Pod]))
	d2.Add(pod("a", "1"), pod("b", "2"))
	d2.Sync()
	if got := drain(plain); !slices.Equal(got, []string{"ns/a", "ns/b"}) {
		t.Errorf("a plain queue: %v", got)
	}
}

// nextKeys takes n keys' names in the order q gives them, marking each done.
func nextKeys(q workqueue.TypedInterface[runtime.Key], n int) []string {
	var got []string
	for range n {
		k, _ := q.Get()
		got = append(got, k.Name)
		q.Done(k)
	}
	return got
}

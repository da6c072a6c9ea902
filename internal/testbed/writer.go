package testbed

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// WriterOptions shape a Writer's load. Zero fields take the defaults.
type WriterOptions struct {
	// Rate is the target of writes per second, all workers together
	// (default 300).
	Rate float64
	// Workers is the number of concurrent writers (default 8).
	Workers int
	// Population is the number of objects the writer keeps in the
	// namespace, roughly: below it creates are likelier than deletes, above
	// it the reverse (default 1000).
	Population int
	// MaxWrites bounds the number of write attempts (default 200,000).
	MaxWrites int64
	// MaxDuration bounds how long the writer runs (default 3 minutes).
	MaxDuration time.Duration
	// Size is the number of bytes of data in each object written (default 64).
	Size int
	// KeepExisting leaves the objects the namespace held when the writer
	// started alone; by default the writer adopts them and they churn too.
	KeepExisting bool
}

func (o *WriterOptions) defaults() {
	if o.Rate <= 0 {
		o.Rate = 300
	}
	if o.Workers <= 0 {
		o.Workers = 8
	}
	if o.Population <= 0 {
		o.Population = 1000
	}
	if o.MaxWrites <= 0 {
		o.MaxWrites = 200_000
	}
	if o.MaxDuration <= 0 {
		o.MaxDuration = 3 * time.Minute
	}
	if o.Size <= 0 {
		o.Size = 64
	}
}

// WriterStats counts what a Writer did. A write whose request failed is
// counted in Errors only, even if the server applied it before failing.
type WriterStats struct {
	Creates, Updates, Deletes, Errors int64
	Elapsed                           time.Duration
	LastError                         error
}

// Writes returns the number of successful writes.
func (s WriterStats) Writes() int64 { return s.Creates + s.Updates + s.Deletes }

func (s WriterStats) String() string {
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(s.Writes()) / s.Elapsed.Seconds()
	}
	return fmt.Sprintf("%d creates, %d updates, %d deletes (%.0f/s), %d errors in %s",
		s.Creates, s.Updates, s.Deletes, rate, s.Errors, s.Elapsed.Round(time.Millisecond))
}

// Writer creates, updates (merge patch) and deletes ConfigMaps in one
// namespace at a steady rate, from a few concurrent workers, until Stop,
// its context is done, or its bounds (MaxWrites, MaxDuration) are reached.
// It adopts the ConfigMaps the namespace holds when it starts, so that
// those churn too (see KeepExisting). Failed requests (an apiserver that is down, a proxy
// that refuses) are counted and the writer carries on: it never fails the
// test from its goroutines.
type Writer struct {
	serial  int64 // names the objects it creates apart from other writers'
	cs      kubernetes.Interface
	ns      string
	o       WriterOptions
	limiter flowcontrol.RateLimiter
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started time.Time
	stopped atomic.Int64 // UnixNano when the workers ended; 0 while running
	stopMu  sync.Mutex

	attempts                          atomic.Int64
	creates, updates, deletes, errors atomic.Int64
	lastErr                           atomic.Pointer[error]
}

// writers counts the Writers started by this process.
var writers atomic.Int64

// StartWriter starts a Writer on ns with the client configuration cfg
// (each request is bounded to 5s, so that a killed apiserver cannot hang
// it). It is stopped when the test ends at the latest.
func StartWriter(t testing.TB, cfg *rest.Config, ns string, o WriterOptions) *Writer {
	t.Helper()
	o.defaults()
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = 5 * time.Second
	cfg.QPS, cfg.Burst = -1, 0 // the writer paces itself
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var existing []metav1.PartialObjectMetadata
	if !o.KeepExisting {
		// Names are all it needs: a metadata-only LIST stays small when
		// the objects are big (24 MiB of them read within 5s failed
		// under the race detector).
		list, err := metadata.NewForConfigOrDie(cfg).Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).
			Namespace(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("writer: list %s: %v", ns, err)
		}
		existing = list.Items
	}
	w := &Writer{
		serial: writers.Add(1),
		cs:     cs, ns: ns, o: o,
		limiter: flowcontrol.NewTokenBucketRateLimiter(float32(o.Rate), o.Workers),
		started: time.Now(),
	}
	owned := make([][]string, o.Workers)
	for _, cm := range existing {
		h := fnv.New32a()
		h.Write([]byte(cm.Name))
		i := int(h.Sum32() % uint32(o.Workers))
		owned[i] = append(owned[i], cm.Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.MaxDuration)
	w.cancel = cancel
	for i := range o.Workers {
		w.wg.Add(1)
		go w.work(ctx, i, owned[i])
	}
	go func() {
		w.wg.Wait()
		w.stopped.Store(time.Now().UnixNano())
		cancel()
	}()
	t.Cleanup(func() { w.Stop() })
	return w
}

// Stop stops the writer, waits for its workers and returns what it did. It
// is safe to call more than once.
func (w *Writer) Stop() WriterStats {
	w.stopMu.Lock()
	defer w.stopMu.Unlock()
	w.cancel()
	w.wg.Wait()
	if w.stopped.Load() == 0 {
		w.stopped.Store(time.Now().UnixNano())
	}
	return w.Stats()
}

// Stats returns what the writer did so far.
func (w *Writer) Stats() WriterStats {
	end := time.Now()
	if n := w.stopped.Load(); n != 0 {
		end = time.Unix(0, n)
	}
	s := WriterStats{
		Creates: w.creates.Load(), Updates: w.updates.Load(), Deletes: w.deletes.Load(),
		Errors: w.errors.Load(), Elapsed: end.Sub(w.started),
	}
	if e := w.lastErr.Load(); e != nil {
		s.LastError = *e
	}
	return s
}

// live is one worker's view of the objects it owns.
type live struct {
	names []string
	at    map[string]int
}

func (l *live) add(n string) {
	if _, ok := l.at[n]; ok {
		return
	}
	l.at[n] = len(l.names)
	l.names = append(l.names, n)
}

func (l *live) remove(n string) {
	i, ok := l.at[n]
	if !ok {
		return
	}
	last := l.names[len(l.names)-1]
	l.names[i], l.at[last] = last, i
	l.names = l.names[:len(l.names)-1]
	delete(l.at, n)
}

func (w *Writer) work(ctx context.Context, id int, owned []string) {
	defer w.wg.Done()
	l := &live{at: map[string]int{}}
	for _, n := range owned {
		l.add(n)
	}
	target := w.o.Population / w.o.Workers
	payload := strings.Repeat("x", w.o.Size)
	seq := 0
	for {
		if err := w.limiter.Wait(ctx); err != nil {
			return
		}
		if w.attempts.Add(1) > w.o.MaxWrites {
			return
		}
		// Creates and deletes keep the population near its target;
		// half the writes or so are updates.
		create, del := 0.25, 0.25
		switch {
		case len(l.names) == 0:
			create, del = 1, 0
		case len(l.names) < target*9/10:
			create, del = 0.45, 0.05
		case len(l.names) > target*11/10:
			create, del = 0.05, 0.45
		}
		r := rand.Float64()
		switch {
		case r < create:
			seq++
			name := fmt.Sprintf("w%d-%d-%06d", w.serial, id, seq)
			_, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Data:       map[string]string{"v": "0", "pad": payload},
			}, metav1.CreateOptions{})
			// A failed create may have been applied: keep the name, a later
			// update or delete finds out.
			l.add(name)
			w.count(ctx, err, &w.creates)
		case r < create+del:
			name := l.names[rand.IntN(len(l.names))]
			err := w.cs.CoreV1().ConfigMaps(w.ns).Delete(ctx, name, metav1.DeleteOptions{})
			if err == nil || apierrors.IsNotFound(err) {
				l.remove(name)
			}
			w.count(ctx, err, &w.deletes)
		default:
			name := l.names[rand.IntN(len(l.names))]
			patch := `{"data":{"v":"` + strconv.Itoa(rand.Int()) + `"}}`
			_, err := w.cs.CoreV1().ConfigMaps(w.ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			if apierrors.IsNotFound(err) {
				l.remove(name)
			}
			w.count(ctx, err, &w.updates)
		}
	}
}

func (w *Writer) count(ctx context.Context, err error, ok *atomic.Int64) {
	switch {
	case err == nil:
		ok.Add(1)
	case ctx.Err() != nil && errors.Is(err, context.Canceled), ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded):
		// stopping: not a failure of the server
	default:
		w.errors.Add(1)
		w.lastErr.Store(&err)
	}
}

// FillConfigMaps creates n ConfigMaps named f-00000... in ns, each with size
// bytes of data, from 16 concurrent workers, and fails the test on the
// first error. The data is random letters and digits, which compress as
// real data does (kube-apiserver 1.37 gzips WatchList streams: a repeated
// letter shrinks 50-fold, and a stream of it passes in no time).
func FillConfigMaps(t testing.TB, cs kubernetes.Interface, ns string, n, size int) {
	t.Helper()
	noise := randomText(1<<20 + size)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	next := make(chan int)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("f-%05d", i)},
					Data:       map[string]string{"pad": noise[i*2654435761%(1<<20):][:size]}, // scattered: no two neighbours alike
				}, metav1.CreateOptions{})
				if err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		t.Fatalf("fill %s: %v", ns, first)
	}
}

// randomText returns n random letters and digits.
func randomText(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return string(b)
}

package runtime_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func TestMain(m *testing.M) { os.Exit(testbed.Main(m)) }

// jsonOnly is a type with no protobuf methods, as CRD types are.
type jsonOnly struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (o *jsonOnly) DeepCopyObject() kruntime.Object {
	c := *o
	o.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

type jsonOnlyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []jsonOnly `json:"items"`
}

func (l *jsonOnlyList) DeepCopyObject() kruntime.Object {
	c := *l
	c.Items = append([]jsonOnly(nil), l.Items...)
	return &c
}

var jsonOnlyResource = runtime.Resource{
	Group: "example.com", Version: "v1", Resource: "things", Kind: "Thing", Namespaced: true,
	NewList: func() kruntime.Object { return &jsonOnlyList{} },
}

// configMaps is the Resource of core/v1 ConfigMaps.
var configMaps = runtime.Resource{
	Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true,
	NewList: func() kruntime.Object { return &corev1.ConfigMapList{} },
}

// recorder is a Handler that records what it is told.
type recorder struct {
	mu       sync.Mutex
	adds     map[string]int // key -> OnAdd count
	addRVs   map[string]int // key@rv -> OnAdd/OnUpdate count, to catch duplicates
	updates  int
	deletes  map[string]int
	inferred map[string]int // key -> OnDelete(DeletionInferred) count
	resyncs  int
	syncs    int
	errs     []error
	order    []string // "add:key", "sync", ...
}

func newRecorder() *recorder {
	return &recorder{adds: map[string]int{}, addRVs: map[string]int{}, deletes: map[string]int{}, inferred: map[string]int{}}
}

func key(cm *corev1.ConfigMap) string { return cm.Namespace + "/" + cm.Name }

func (r *recorder) OnResyncStarted() {
	r.mu.Lock()
	r.resyncs++
	r.order = append(r.order, "resync")
	r.mu.Unlock()
}
func (r *recorder) OnSync() { r.mu.Lock(); r.syncs++; r.order = append(r.order, "sync"); r.mu.Unlock() }
func (r *recorder) OnError(err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.mu.Unlock()
}
func (r *recorder) OnAdd(cm *corev1.ConfigMap) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.adds[key(cm)]++
	r.addRVs[key(cm)+"@"+cm.ResourceVersion]++
	r.order = append(r.order, "add:"+key(cm))
}
func (r *recorder) OnUpdate(old, cm *corev1.ConfigMap) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates++
	r.addRVs[key(cm)+"@"+cm.ResourceVersion]++
	r.order = append(r.order, "update:"+key(cm))
}
func (r *recorder) OnDelete(cm *corev1.ConfigMap, how runtime.Deletion) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deletes[key(cm)]++
	if how == runtime.DeletionInferred {
		r.inferred[key(cm)]++
	}
	r.order = append(r.order, "delete:"+key(cm))
}

// duplicates returns the object versions delivered more than once.
func (r *recorder) duplicates() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k, n := range r.addRVs {
		if n > 1 {
			out = append(out, fmt.Sprintf("%s x%d", k, n))
		}
	}
	return out
}

// waitSynced waits for the recorder's first OnSync.
func (r *recorder) waitSynced(ctx context.Context) error {
	for {
		if r.snapshot(func(r *recorder) bool { return r.syncs > 0 }) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (r *recorder) snapshot(f func(r *recorder) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return f(r)
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// createConfigMaps creates ConfigMaps cm-<from>..cm-<to-1> in ns with 8 workers.
func createConfigMaps(t *testing.T, cs kubernetes.Interface, ns string, from, to int, labels map[string]string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, to-from)
	next := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				_, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Labels: labels},
					Data:       map[string]string{"i": fmt.Sprint(i)},
				}, metav1.CreateOptions{})
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// startSyncer starts a ConfigMap syncer with a recorder and stops it when
// the test ends, checking that Run returns.
func startSyncer(t *testing.T, cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*corev1.ConfigMap], *recorder) {
	t.Helper()
	s, err := runtime.New[*corev1.ConfigMap](cfg, configMaps, opts...)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	s.AddHandler(rec)
	runSyncer(t, s)
	return s, rec
}

// runSyncer runs s until the test ends, checking that Run then returns.
// stop does the same earlier; it may be called more than once.
func runSyncer[T runtime.Object](t *testing.T, s *runtime.Syncer[T]) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return 10s after its context was cancelled")
		}
	})
	t.Cleanup(stop)
	return stop
}

// storeMatchesServer checks that the syncer's store holds exactly what the
// server holds in ns, at the same resourceVersions.
func storeMatchesServer(t *testing.T, cs kubernetes.Interface, s *runtime.Syncer[*corev1.ConfigMap], ns string) func() bool {
	return func() bool {
		list, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Store().Len() != len(list.Items) {
			return false
		}
		for _, want := range list.Items {
			got, ok := s.Store().Get(ns, want.Name)
			if !ok || got.ResourceVersion != want.ResourceVersion {
				return false
			}
		}
		return true
	}
}

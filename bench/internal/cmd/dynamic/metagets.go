package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/oursrun"
	"github.com/syncer-gen/syncer-gen/dynamicsyncer"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// metadataGets is ours-metadata-gets: the other way to keep a few named
// Secrets whole where the program may list the type. A metadata syncer of
// every Secret of the namespace (dynamicsyncer.NewMetadata) tells when a
// named one changes; each named one is read whole with a GET once synced,
// and again when its resourceVersion changes (the steady state's lag is
// taken once that GET returned). Objects are the named Secrets read whole.
func metadataGets(ctx context.Context, e *child.Env, res runtime.Resource) (child.Outcome, error) {
	if len(e.Names) == 0 {
		return child.Outcome{}, fmt.Errorf("%s: no -names", child.OursMetadataGets)
	}
	get, err := secretGetter(e.Cfg, e.Namespace)
	if err != nil {
		return child.Outcome{}, err
	}
	s, err := dynamicsyncer.NewMetadata(e.Cfg, res, runtime.WithNamespace(e.Namespace))
	if err != nil {
		return child.Outcome{}, err
	}
	named := map[string]bool{}
	for _, n := range e.Names {
		named[n] = true
	}
	var mu sync.Mutex
	whole := map[string]*corev1.Secret{}
	var synced atomic.Bool
	changed := make(chan string, 1<<14) // named Secrets changed, to GET again
	var failures atomic.Int64
	var lastErr atomic.Value
	fetch := func(ctx context.Context, name string) error {
		sec, err := get(ctx, name)
		if err != nil {
			failures.Add(1)
			lastErr.Store(err.Error())
			return err
		}
		mu.Lock()
		whole[name] = sec
		mu.Unlock()
		return nil
	}
	s.AddHandler(runtime.HandlerFuncs[*metav1.PartialObjectMetadata]{
		AddFunc: func(o *metav1.PartialObjectMetadata) {
			mu.Lock()
			_, have := whole[o.Name]
			mu.Unlock()
			if synced.Load() && named[o.Name] && !have {
				_ = fetch(ctx, o.Name) // counted in failures
			}
		},
		UpdateFunc: func(old, o *metav1.PartialObjectMetadata) {
			if synced.Load() && named[o.Name] && old.ResourceVersion != o.ResourceVersion {
				changed <- o.Name // a handler that waits for a GET would have its events coalesced
			}
		},
		DeleteFunc: func(o *metav1.PartialObjectMetadata, _ runtime.Deletion) {
			mu.Lock()
			delete(whole, o.Name)
			mu.Unlock()
		},
		ErrorFunc: func(err error) { failures.Add(1); lastErr.Store(err.Error()) },
	})
	refetch, stopRefetch := context.WithCancel(ctx)
	for range refetchers {
		go func() {
			for {
				select {
				case <-refetch.Done():
					return
				case name := <-changed:
					if fetch(refetch, name) == nil {
						mu.Lock()
						sec := whole[name]
						mu.Unlock()
						e.Lags.Observe(sec)
					}
				}
			}
		}()
	}
	stopRun, _, err := oursrun.Start(ctx, e, s, &lastErr)
	if err != nil {
		stopRefetch()
		return child.Outcome{}, err
	}
	stop := func() { stopRun(); stopRefetch() }
	synced.Store(true)
	gctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	if err := getAll(gctx, e, s.Store(), fetch); err != nil {
		stop()
		return child.Outcome{}, err
	}
	mu.Lock()
	n := len(whole)
	mu.Unlock()
	note := "mode=" + s.Mode().String()
	if f := failures.Load(); f > 0 {
		note += fmt.Sprintf(" errors=%d last=%v", f, lastErr.Load())
	}
	return child.Outcome{Objects: n, Note: note, StoreBytes: s.Store().Bytes(), Keep: []any{s, whole},
		Stop: func() error { stop(); return nil }}, nil
}

// refetchers GET the named Secrets that changed, at once.
const refetchers = 4

// getAll GETs the named objects the metadata store holds, getters at once.
func getAll(ctx context.Context, e *child.Env, st *runtime.Store[*metav1.PartialObjectMetadata], fetch func(context.Context, string) error) error {
	const getters = 16
	names := make(chan string)
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range getters {
		wg.Go(func() {
			for n := range names { // every name taken, failed or not: the feeder never waits on a getter that gave up
				if err := fetch(ctx, n); err != nil {
					once.Do(func() { first = fmt.Errorf("get secret %s/%s: %w", e.Namespace, n, err) })
				}
			}
		})
	}
	for _, n := range e.Names {
		if _, ok := st.Get(e.Namespace, n); ok {
			names <- n
		}
	}
	close(names)
	wg.Wait()
	return first
}

// secretGetter returns a GET of one Secret of ns, whole, in protobuf, over
// a REST client of core/v1 that knows no other group.
func secretGetter(cfg *rest.Config, ns string) (func(context.Context, string) (*corev1.Secret, error), error) {
	scheme := kruntime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c := rest.CopyConfig(cfg)
	c.GroupVersion, c.APIPath = &corev1.SchemeGroupVersion, "/api"
	c.ContentType = kruntime.ContentTypeProtobuf
	c.AcceptContentTypes = kruntime.ContentTypeProtobuf + "," + kruntime.ContentTypeJSON
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, name string) (*corev1.Secret, error) {
		var s corev1.Secret
		err := rc.Get().Namespace(ns).Resource("secrets").Name(name).Timeout(30 * time.Second).Do(ctx).Into(&s)
		return &s, err
	}, nil
}

package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// objectName names the i-th object.
func objectName(i int) string { return child.ObjectName(i) }

// payload returns size printable bytes, different per object.
func payload(i, size int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var b strings.Builder
	b.Grow(size)
	x := uint32(i)*2654435761 + 1
	for range size {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b.WriteByte(alphabet[x%uint32(len(alphabet))])
	}
	return b.String()
}

// populate creates the namespace and o.n objects of res with o.workers in
// parallel; rc is a REST client of res's API group and version.
func populate(ctx context.Context, cs kubernetes.Interface, rc rest.Interface, o options, res resource) error {
	return populateWith(ctx, cs, o, "creating "+res.plural, func(ctx context.Context, i int) error {
		return create(ctx, rc, o, res, i)
	})
}

// populateWith creates the namespace o.namespace, then calls write for each
// of o.n objects, with o.workers in parallel, showing progress as what.
func populateWith(ctx context.Context, cs kubernetes.Interface, o options, what string, write func(ctx context.Context, i int) error) error {
	if err := createNamespace(ctx, cs, o.namespace); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := driver.StartProgress(what, o.n)
	defer p.Finish()
	next := make(chan int)
	errs := make(chan error, o.workers)
	var wg sync.WaitGroup
	for range o.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := write(ctx, i); err != nil {
					errs <- err
					cancel()
					return
				}
				p.Add(1)
			}
		}()
	}
feed:
	for i := range o.n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return ctx.Err()
	}
}

// createNamespace creates namespace name, unless it exists.
func createNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", name, err)
	}
	return nil
}

// create creates object i, retrying what a loaded server may answer.
func create(ctx context.Context, rc rest.Interface, o options, res resource, i int) error {
	obj := res.newObject(o.namespace, objectName(i), payload(i, o.size))
	return retried(ctx, "create "+res.plural+" "+objectName(i), func() error {
		err := rc.Post().Namespace(o.namespace).Resource(res.plural).
			Body(obj).Timeout(30 * time.Second).Do(ctx).Error()
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
}

// retried calls write until it succeeds, up to 5 times while it fails
// with what a loaded server may answer (429, timeouts, 500, 503).
func retried(ctx context.Context, what string, write func() error) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		err = write()
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
			apierrors.IsInternalError(err), apierrors.IsServiceUnavailable(err):
			continue
		default:
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return fmt.Errorf("%s: gave up after 5 attempts: %w", what, err)
}

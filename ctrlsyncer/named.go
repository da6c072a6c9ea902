package ctrlsyncer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// A type whose syncer was made over names (runtime.WithNames, e.g.
// ctrlsyncer.Add(mgr, &r.Client, coresyncers.SecretSyncerIn,
// runtime.WithNames())) is read by name: a Get of a name the syncer does
// not keep yet adds it (its LIST and WATCH of that name start) and waits
// until it has synced, so that the program needs get, list and watch on
// the objects it reads only (a Role with resourceNames), and keeps those
// only; later Gets read the store. A List is refused: the syncer holds
// the names read so far, not the resource (ListsOverNames lets it answer
// over them).

// defaultNameWait bounds a Get's wait for a name it added.
const defaultNameWait = 30 * time.Second

// NamesDroppedAfter makes a Reader drop a name of a syncer over names that
// no Get has read for d: its object leaves the store, told to handlers as
// a deletion (runtime.DeletionInferred), and the next Get of it adds it
// again. 0 (the default) keeps every name read. Dropping is done by the
// Gets, at most once every d/2.
func NamesDroppedAfter(d time.Duration) ReaderOption {
	return func(r *Reader) { r.names.idle = d }
}

// ListsOverNames makes a List of a type served by a syncer over names
// answer over the names it keeps (those read so far), instead of failing.
func ListsOverNames() ReaderOption { return func(r *Reader) { r.names.lists = true } }

// NameWait bounds how long a Get of a name it added to a syncer over
// names waits for it to sync (default 30s), within its context.
func NameWait(d time.Duration) ReaderOption { return func(r *Reader) { r.names.wait = d } }

// namesOptions are a Reader's options for syncers over names.
type namesOptions struct {
	idle  time.Duration
	lists bool
	wait  time.Duration
}

// names is what a Reader keeps of one syncer over names.
type names struct {
	syncer interface {
		AddNames(keys ...runtime.Key) error
		RemoveNames(keys ...runtime.Key) error
		WaitForName(ctx context.Context, k runtime.Key) error
	}
	o          namesOptions
	namespaced bool

	mu    sync.Mutex
	read  map[runtime.Key]time.Time // when each name was last read
	swept time.Time
}

// namesOf returns what a Reader keeps of s, nil if s is not over names.
func namesOf[T client.Object](s *runtime.Syncer[T], o namesOptions) *names {
	if !s.OverNames() {
		return nil
	}
	if o.wait <= 0 {
		o.wait = defaultNameWait
	}
	return &names{syncer: s, o: o, namespaced: s.Resource().Namespaced, read: map[runtime.Key]time.Time{}}
}

// ensure makes the syncer keep the object of key, adding its name if it
// does not yet, and waits until that name has synced. A name the server
// refuses fails with its *runtime.NameError, which unwraps to the
// server's error (apierrors.IsForbidden); one that does not sync in time
// fails as the cache's Get of an informer that does not sync, a Timeout.
// A refused name is not kept: the next Get of it asks the server again.
func (n *names) ensure(ctx context.Context, typ string, key client.ObjectKey) error {
	k := runtime.Key{Namespace: key.Namespace, Name: key.Name}
	if !n.namespaced {
		k.Namespace = ""
	}
	now := time.Now()
	n.mu.Lock()
	_, known := n.read[k]
	n.read[k] = now
	var idle []runtime.Key
	if n.o.idle > 0 && now.Sub(n.swept) >= n.o.idle/2 {
		n.swept = now
		for other, at := range n.read {
			if now.Sub(at) >= n.o.idle {
				idle = append(idle, other)
				delete(n.read, other)
			}
		}
	}
	n.mu.Unlock()
	if len(idle) > 0 {
		if err := n.syncer.RemoveNames(idle...); err != nil {
			return err
		}
	}
	if !known {
		if err := n.syncer.AddNames(k); err != nil {
			n.forget(k)
			return err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, n.o.wait)
	defer cancel()
	err := n.syncer.WaitForName(wctx, k)
	var nameErr *runtime.NameError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &nameErr): // not kept, and retried, for a Get that may never come again: the next Get asks anew
		n.forget(k)
		if rerr := n.syncer.RemoveNames(k); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	case errors.Is(err, runtime.ErrNotANameOfTheSyncer): // dropped meanwhile: read again
		n.forget(k)
		return n.ensure(ctx, typ, key)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return apierrors.NewTimeoutError(fmt.Sprintf("failed waiting for %s Informer to sync: name %s: %v", typ, k, err), 0)
	}
	return err
}

// forget makes the next Get of k add it again.
func (n *names) forget(k runtime.Key) {
	n.mu.Lock()
	delete(n.read, k)
	n.mu.Unlock()
}

// errListOfNames is a List of a type served by a syncer over names.
func errListOfNames(list client.ObjectList) error {
	return fmt.Errorf("ctrlsyncer: List of %T: its syncer is over names (runtime.WithNames) and keeps only the objects read by name so far; read them with Get, or give the Reader ListsOverNames to list those", list)
}

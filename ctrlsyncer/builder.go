package ctrlsyncer

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

// A generated XSyncerIn function (e.g. shopsyncers.WidgetSyncerIn) is
// what For, Owns and Add take: func(*syncerset.Set, ...runtime.Option)
// (*XSyncer, error), where XSyncer is struct{ *runtime.Syncer[*X] }. Its
// type parameters are inferred from it.

// Add makes the reconciler whose client field is c read T from the syncer
// newSyncer makes with opts in the Manager's set, and returns that syncer.
// c is the address of the reconciler's client (&r.Client): Add puts there
// the Client that reads from the syncers (use explains which), so that a
// reconciler made with mgr.GetClient(), as a kubebuilder main.go or suite
// makes it, switches in SetupWithManager alone. The syncer also gets the
// indexes FieldIndexer declared for T, and what the cache options of
// WithCacheOptions give T: its namespaces, selectors, transform, resync
// period and UnsafeDisableDeepCopy (options in opts that set a selector or
// a resync period, or limit the namespaces, take the place of the cache's). Adding again with the same options returns
// the same syncer; with others, it is an error.
func Add[S interface{ *G }, G ~struct{ *runtime.Syncer[T] }, T client.Object](mgr manager.Manager, c *client.Client, newSyncer func(*syncerset.Set, ...runtime.Option) (S, error), opts ...runtime.Option) (*runtime.Syncer[T], error) {
	cl, err := use(mgr, c)
	if err != nil {
		return nil, err
	}
	t := reflect.TypeFor[T]()
	gvk, err := gvkOfSyncer(cl, newSyncer)
	if err != nil {
		return nil, fmt.Errorf("ctrlsyncer: the syncer of %s: %w", t, err)
	}
	var fromCache []runtime.Option // what WithCacheOptions gives T, before opts, which may take its place
	share := false
	if cl.cacheOpts != nil {
		st, err := cl.cacheOpts.of(t, gvk)
		if err != nil {
			return nil, fmt.Errorf("ctrlsyncer: the syncer of %s: %w", t, err)
		}
		fromCache, share = st.syncerOptions(append(slices.Clone(cl.syncerOpts), opts...), opts, cl.log), st.noCopy
	}
	opts = append(append(fromCache, opts...), cl.takeIndexes(t, gvk)...) // indexes after the markers' and opts: FieldIndexer's replace theirs
	g, err := newSyncer(cl.set, opts...)
	if err != nil {
		return nil, fmt.Errorf("ctrlsyncer: the syncer of %s: %w", t, err)
	}
	s := struct{ *runtime.Syncer[T] }(*g).Syncer
	if err := serve(cl, s, opts, share); err != nil {
		return nil, err
	}
	return s, nil
}

// For returns the source of a controller's own resource, as the builder's
// For(&X{}) watches it, from its syncer: in SetupWithManager,
//
//	For(&shopv1alpha1.Widget{}).
//
// becomes
//
//	WatchesRawSource(ctrlsyncer.For(mgr, &r.Client, shopsyncers.WidgetSyncerIn)).
//
// (with Named("widget") on the builder, which needs a name without For).
// Each event enqueues the object's own key. The syncer is made as Add
// makes it; an error in making it is returned by the source's Start, and
// so by the Manager's.
func For[S interface{ *G }, G ~struct{ *runtime.Syncer[T] }, T client.Object](mgr manager.Manager, c *client.Client, newSyncer func(*syncerset.Set, ...runtime.Option) (S, error), opts ...SourceOption) source.TypedSyncingSource[reconcile.Request] {
	o := sourceOptionsOf(opts)
	s, err := Add(mgr, c, newSyncer, o.syncer...)
	if err != nil {
		return failed{err}
	}
	return Source(s, &handler.TypedEnqueueRequestForObject[T]{}, typed[T](o.predicates)...)
}

// Owns returns the source of a resource the controller's objects own, as
// the builder's Owns(&X{}) watches it, from its syncer:
//
//	Owns(&batchv1.Job{}).
//
// becomes
//
//	WatchesRawSource(ctrlsyncer.Owns(mgr, &r.Client, batchsyncers.JobSyncerIn, &cronjobv1.CronJob{})).
//
// Each event enqueues the object's controller owner if it is of owner's
// type (handler.EnqueueRequestForOwner with OnlyControllerOwner, as Owns
// does by default). owner's type must be in the client's scheme.
func Owns[S interface{ *G }, G ~struct{ *runtime.Syncer[T] }, T client.Object](mgr manager.Manager, c *client.Client, newSyncer func(*syncerset.Set, ...runtime.Option) (S, error), owner client.Object, opts ...SourceOption) source.TypedSyncingSource[reconcile.Request] {
	o := sourceOptionsOf(opts)
	s, err := Add(mgr, c, newSyncer, o.syncer...)
	if err != nil {
		return failed{err}
	}
	if _, err := apiutil.GVKForObject(owner, mgr.GetScheme()); err != nil {
		return failed{fmt.Errorf("ctrlsyncer.Owns: the owner of %s: %w", reflect.TypeFor[T](), err)}
	}
	h := handler.TypedEnqueueRequestForOwner[T](mgr.GetScheme(), mgr.GetRESTMapper(), owner, handler.OnlyControllerOwner())
	return Source(s, h, typed[T](o.predicates)...)
}

// failed is the source of a syncer that could not be made: the Manager
// stops with its error when the controller starts it.
type failed struct{ err error }

func (f failed) Start(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	return f.err
}

func (f failed) WaitForSync(context.Context) error { return f.err }

func (f failed) String() string { return "syncer source (not made): " + f.err.Error() }

// SourceOption configures a source of For or Owns.
type SourceOption func(*sourceOptions)

type sourceOptions struct {
	syncer     []runtime.Option
	predicates []predicate.Predicate
}

func sourceOptionsOf(opts []SourceOption) sourceOptions {
	var o sourceOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithOptions gives the syncer's options (after the Client's and the
// markers'), e.g. runtime.WithLabelSelector.
func WithOptions(opts ...runtime.Option) SourceOption {
	return func(o *sourceOptions) { o.syncer = append(o.syncer, opts...) }
}

// WithPredicates filters the events, as the builder's
// builder.WithPredicates does.
func WithPredicates(preds ...predicate.Predicate) SourceOption {
	return func(o *sourceOptions) { o.predicates = append(o.predicates, preds...) }
}

// gvkOfSyncer returns the GroupVersionKind of the resource newSyncer's
// syncers are of, before the syncer is made (its indexes and namespaces
// are among its options): T's in the client's scheme, or, for a type the
// scheme does not know (a projection, PartialObjectMetadata,
// Unstructured), that of a syncer made in a set of its own and dropped,
// never run.
func gvkOfSyncer[S interface{ *G }, G ~struct{ *runtime.Syncer[T] }, T client.Object](c *Client, newSyncer func(*syncerset.Set, ...runtime.Option) (S, error)) (schema.GroupVersionKind, error) {
	t := reflect.TypeFor[T]()
	if !anyResource(t) && inScheme[T](c.Scheme()) {
		return apiutil.GVKForObject(reflect.New(t.Elem()).Interface().(T), c.Scheme())
	}
	scratch, err := syncerset.New(c.cfg)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	g, err := newSyncer(scratch)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gvkOf(struct{ *runtime.Syncer[T] }(*g).Resource()), nil
}

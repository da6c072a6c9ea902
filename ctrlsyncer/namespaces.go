package ctrlsyncer

import (
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// WithCacheOptions gives the Client the cache.Options its Manager was made
// with (ctrl.Options.Cache), which controller-runtime does not expose, so
// that each syncer watches what the cache would watch of its type and the
// Client answers as the cache would: a Get of an object the options
// exclude is NotFound, as in the cache, and no syncer holds it. Every
// field of cache.Options, of its ByObject and of its per-namespace Config
// is carried with the cache's meaning, ignored where that changes nothing
// a read returns, or refused by NewClient with an error that names it and
// says what to do instead; a field this ctrlsyncer does not know (of a
// later controller-runtime) is refused when set:
//
//	DefaultNamespaces, ByObject[o].Namespaces  carried: the type's namespaces (runtime.WithNamespaces); AllNamespaces among the keys: every namespace
//	DefaultLabelSelector, ByObject[o].Label,   carried: the syncer's label selector (runtime.WithLabelSelector), the selector's String() as the cache sends it
//	  Config.LabelSelector
//	DefaultFieldSelector, ByObject[o].Field,   carried: the syncer's field selector (runtime.WithFieldSelector)
//	  Config.FieldSelector
//	DefaultTransform, ByObject[o].Transform,   carried: the syncer's first transform; one that fails, or returns another type,
//	  Config.Transform                           is logged and the object kept as it came (the cache's informer would retry its list)
//	DefaultUnsafeDisableDeepCopy,              carried: reads of the type hand out the store's objects (as WithoutDeepCopy does for every type)
//	  ByObject[o].UnsafeDisableDeepCopy,
//	  Config.UnsafeDisableDeepCopy
//	SyncPeriod, ByObject[o].SyncPeriod,        carried: the syncer's resync period (runtime.WithResyncPeriod)
//	  Config.SyncPeriod
//	ByObject (its keys)                        carried: by type, or by kind for PartialObjectMetadata, Unstructured and projections
//	Scheme, Mapper                             carried: map ByObject's objects to kinds, and tell their scope (the Manager's when nil)
//	HTTPClient                                 ignored: the syncers use a client of their own made from the Manager's rest.Config
//	ReaderFailOnMissingInformer                ignored: reads of a type no syncer serves go to the Manager's client, whose cache applies it
//	DefaultWatchErrorHandler                   ignored: the syncers retry on their own, log through the Client's logger and tell their last error
//	DefaultEnableWatchBookmarks,               ignored: bookmarks only let a watch resume cheaply; the syncers ask for them themselves
//	  ByObject[o].EnableWatchBookmarks,
//	  Config.EnableWatchBookmarks
//	NewInformer                                refused: the syncers are not informers; give WithCacheOptions the options without it
//
// Each setting follows the cache's precedence: a namespace's Config, then
// ByObject's for the type, then DefaultNamespaces' Config of that
// namespace, then the Default* options. The namespaces of one type must
// agree on each setting (a type of one namespace always does): a syncer
// keeps one store over its namespaces, with one selector, transform and
// resync period; NewClient refuses options whose namespaces differ, naming
// the setting and where each namespace's comes from. A syncer's own
// options (WithOptions, Add's, WithSyncerOptions) that set a selector or a
// resync period, or limit its namespaces (its own), take the place of the
// cache's for it.
//
// Without WithCacheOptions, NewClient fails for a Manager whose cache
// watches DefaultNamespaces, unless WithSyncerOptions limits the syncers
// to namespaces (runtime.WithNamespace or runtime.WithNamespaces).
func WithCacheOptions(opts cache.Options) ClientOption {
	return func(o *clientOptions) { o.cacheOpts = &opts }
}

// checkCacheNamespaces refuses a Manager whose cache watches a set of
// namespaces when the Client was told neither the cache's options nor
// namespaces for its syncers: they would watch every namespace, which the
// program may not be allowed to, and answer reads the cache refused.
func checkCacheNamespaces(mgr manager.Manager, o clientOptions) error {
	if o.cacheOpts != nil {
		return nil
	}
	if _, limited := runtime.NamespacesOf(o.syncerOpts...); limited {
		return nil
	}
	if t := fmt.Sprintf("%T", mgr.GetCache()); t == "*cache.multiNamespaceCache" {
		return errors.New("the Manager's cache watches a set of namespaces (cache.Options.DefaultNamespaces), which controller-runtime does not expose: give NewClient the same options, ctrlsyncer.WithCacheOptions(opts), so that the syncers watch those namespaces too")
	}
	return nil
}

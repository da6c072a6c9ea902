package ctrlsyncer

import (
	"errors"
	"fmt"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"maps"
	"reflect"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// WithCacheOptions gives the Client the cache.Options its Manager was made
// with (ctrl.Options.Cache), which controller-runtime does not expose: the
// namespaces the cache watches, DefaultNamespaces and each type's
// ByObject[obj].Namespaces (which take precedence, as in the cache), are
// each syncer's (runtime.WithNamespaces: one syncer, one store, a list
// and watch per namespace), so that the syncers watch what the cache
// watched, under RBAC limited to those namespaces, and a read outside them
// fails as the cache's does. A namespace's own Config with a selector or a
// transform is refused (give them with WithOptions); AllNamespaces among
// the keys means every namespace, as in the cache. Without it, NewClient
// fails for a Manager whose cache watches DefaultNamespaces, unless
// WithSyncerOptions limits the syncers to namespaces
// (runtime.WithNamespace or runtime.WithNamespaces).
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

// namespacesOf returns the option that limits the syncer of t, of the
// resource gvk, to the namespaces the cache's options give its resource
// (ByObject by type or, for a projection, PartialObjectMetadata or
// Unstructured, by resource), none where they give every namespace.
func (c *Client) namespacesOf(t reflect.Type, gvk schema.GroupVersionKind) ([]runtime.Option, error) {
	o := c.cacheOpts
	if o == nil {
		return nil, nil
	}
	nss, from := o.DefaultNamespaces, "DefaultNamespaces"
	for obj, by := range o.ByObject {
		if by.Namespaces == nil {
			continue
		}
		if objGVK, err := apiutil.GVKForObject(obj, c.Scheme()); reflect.TypeOf(obj) == t || err == nil && objGVK == gvk {
			nss, from = by.Namespaces, fmt.Sprintf("ByObject[%T].Namespaces", obj)
		}
	}
	for ns, cfg := range nss {
		if cfg.LabelSelector != nil || cfg.FieldSelector != nil || cfg.Transform != nil {
			return nil, fmt.Errorf("ctrlsyncer: cache.Options.%s[%q] has a selector or a transform of its own, which the syncer of %s cannot take per namespace: give them to the syncer (ctrlsyncer.WithOptions, runtime.WithLabelSelector)", from, ns, t)
		}
	}
	if _, all := nss[cache.AllNamespaces]; all || len(nss) == 0 {
		return nil, nil
	}
	return []runtime.Option{runtime.WithNamespaces(slices.Sorted(maps.Keys(nss))...)}, nil
}

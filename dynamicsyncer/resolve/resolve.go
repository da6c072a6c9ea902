package resolve

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// Resolver finds the runtime.Resource of a resource named at run time
// through the server's discovery, which it caches: a name it does not
// find makes it read discovery again (a CRD installed since), then fail.
// Its methods are safe for concurrent use.
type Resolver struct {
	disc   discovery.CachedDiscoveryInterface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

// NewResolver returns a Resolver of the server of cfg.
func NewResolver(cfg *rest.Config) (*Resolver, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dynamicsyncer.NewResolver: %w", err)
	}
	return NewResolverFor(dc), nil
}

// NewResolverFor returns a Resolver that reads discovery through dc.
func NewResolverFor(dc discovery.DiscoveryInterface) *Resolver {
	cached := memory.NewMemCacheClient(dc)
	return &Resolver{disc: cached, mapper: restmapper.NewDeferredDiscoveryRESTMapper(cached)}
}

// Resource returns the Resource of gvr: its kind and scope. gvr.Resource
// is the plural or the singular name ("configmaps", "configmap"); an empty
// Version is the server's preferred version of the group.
func (r *Resolver) Resource(gvr schema.GroupVersionResource) (runtime.Resource, error) {
	gvk, err := r.mapper.KindFor(gvr)
	if meta.IsNoMatchError(err) {
		r.refresh()
		gvk, err = r.mapper.KindFor(gvr)
	}
	if err != nil {
		return runtime.Resource{}, fmt.Errorf("dynamicsyncer: resource %s: %w", gvrString(gvr), err)
	}
	return r.find(gvk.GroupVersion(), func(a metav1.APIResource) bool {
		return a.Name == gvr.Resource || a.SingularName == gvr.Resource || a.Kind == gvk.Kind && gvr.Resource == ""
	}, gvrString(gvr))
}

// Kind returns the Resource whose objects are of kind gvk. An empty
// Version is the server's preferred version of the group.
func (r *Resolver) Kind(gvk schema.GroupVersionKind) (runtime.Resource, error) {
	m, err := r.mapper.RESTMapping(gvk.GroupKind(), versions(gvk.Version)...)
	if meta.IsNoMatchError(err) {
		r.refresh()
		m, err = r.mapper.RESTMapping(gvk.GroupKind(), versions(gvk.Version)...)
	}
	if err != nil {
		return runtime.Resource{}, fmt.Errorf("dynamicsyncer: kind %s: %w", gvk, err)
	}
	return r.find(m.GroupVersionKind.GroupVersion(), func(a metav1.APIResource) bool {
		return a.Name == m.Resource.Resource
	}, gvk.String())
}

// refresh forgets what discovery said, so that it is read again: a name
// not found may be of a CRD installed since.
func (r *Resolver) refresh() {
	r.disc.Invalidate()
	r.mapper.Reset()
}

// find returns the Resource of the resource of gv that match picks out
// of discovery (its subresources left out), reading discovery again once
// when there is none. The resource must serve list and watch.
func (r *Resolver) find(gv schema.GroupVersion, match func(metav1.APIResource) bool, what string) (runtime.Resource, error) {
	for again := false; ; again = true {
		list, err := r.disc.ServerResourcesForGroupVersion(gv.String())
		if err == nil {
			for _, a := range list.APIResources {
				if !match(a) || slices.Contains([]rune(a.Name), '/') {
					continue
				}
				if !slices.Contains(a.Verbs, "list") || !slices.Contains(a.Verbs, "watch") {
					return runtime.Resource{}, fmt.Errorf("dynamicsyncer: %s: %s/%s does not serve list and watch (verbs %v)", what, a.Name, gv, a.Verbs)
				}
				return runtime.Resource{Group: gv.Group, Version: gv.Version, Resource: a.Name, Kind: a.Kind, Namespaced: a.Namespaced}, nil
			}
		}
		if again {
			if err == nil {
				err = fmt.Errorf("%s serves no such resource", gv)
			}
			return runtime.Resource{}, fmt.Errorf("dynamicsyncer: %s: %w", what, err)
		}
		r.refresh()
	}
}

// versions returns the versions argument of RESTMapping: none for "",
// which is then the preferred one.
func versions(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

func gvrString(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource + "/" + gvr.Version
	}
	return gvr.Resource + "." + gvr.Group + "/" + gvr.Version
}

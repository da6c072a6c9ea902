package ctrlsyncer

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// What WithCacheOptions does with each field of cache.Options, of its
// ByObject and of its per-namespace Config (see WithCacheOptions): a
// field set in the options given that is not here is refused, so that a
// field a later controller-runtime adds is never dropped unseen.
const (
	carried = "carried"
	ignored = "ignored"
	refused = "refused"
)

// cacheOptionUse is what WithCacheOptions does with one field, and why.
type cacheOptionUse struct{ use, why string }

var cacheOptionUses = map[string]cacheOptionUse{
	"Options.HTTPClient": {ignored, "the syncers send their requests through a client of their own made from the Manager's rest.Config: the same server and credentials"},
	"Options.Scheme":     {carried, "maps ByObject's objects to their kinds (the Manager's scheme when nil)"},
	"Options.Mapper":     {carried, "tells whether ByObject's types are namespaced (the Manager's REST mapper when nil)"},
	"Options.SyncPeriod": {carried, "every syncer's resync period (runtime.WithResyncPeriod)"},
	"Options.ReaderFailOnMissingInformer": {ignored, "a read of a type no syncer serves goes to the Manager's client, " +
		"whose cache applies it"},
	"Options.DefaultNamespaces":    {carried, "the namespaces of every namespaced type ByObject does not limit (runtime.WithNamespaces)"},
	"Options.DefaultLabelSelector": {carried, "every syncer's label selector unless ByObject or the namespace's Config gives one (runtime.WithLabelSelector)"},
	"Options.DefaultFieldSelector": {carried, "every syncer's field selector unless ByObject or the namespace's Config gives one (runtime.WithFieldSelector)"},
	"Options.DefaultTransform":     {carried, "every syncer's transform unless ByObject or the namespace's Config gives one"},
	"Options.DefaultWatchErrorHandler": {ignored, "the syncers retry on their own, log their failures through the Client's logger " +
		"and tell the last one (Syncer.LastError); a read answers the same"},
	"Options.DefaultUnsafeDisableDeepCopy": {carried, "reads of every type hand out the stores' objects unless ByObject or the namespace's Config says otherwise"},
	"Options.DefaultEnableWatchBookmarks": {ignored, "bookmarks only let a watch resume cheaply; the syncers ask for them themselves; " +
		"a read answers the same"},
	"Options.ByObject": {carried, "by type, or by kind for PartialObjectMetadata, Unstructured and projections"},
	"Options.NewInformer": {refused, "the syncers are not informers and cannot be made by it: the Client's reads would not come from " +
		"the informer it makes; give WithCacheOptions the options without it (the Manager keeps it), or leave the types it matters " +
		"for to the Manager's cache"},

	"ByObject.Namespaces":            {carried, "the type's namespaces (runtime.WithNamespaces) and, per namespace, its Config"},
	"ByObject.Label":                 {carried, "the syncer's label selector (runtime.WithLabelSelector)"},
	"ByObject.Field":                 {carried, "the syncer's field selector (runtime.WithFieldSelector)"},
	"ByObject.Transform":             {carried, "the syncer's transform, before its own"},
	"ByObject.UnsafeDisableDeepCopy": {carried, "reads of the type hand out the store's objects"},
	"ByObject.EnableWatchBookmarks":  {ignored, "as DefaultEnableWatchBookmarks"},
	"ByObject.SyncPeriod":            {carried, "the syncer's resync period (runtime.WithResyncPeriod)"},

	"Config.LabelSelector":         {carried, "as ByObject.Label, when every namespace of the type has the same; refused otherwise"},
	"Config.FieldSelector":         {carried, "as ByObject.Field, when every namespace of the type has the same; refused otherwise"},
	"Config.Transform":             {carried, "as ByObject.Transform, when every namespace of the type has the same; refused otherwise"},
	"Config.UnsafeDisableDeepCopy": {carried, "as ByObject.UnsafeDisableDeepCopy, when every namespace of the type has the same; refused otherwise"},
	"Config.EnableWatchBookmarks":  {ignored, "as DefaultEnableWatchBookmarks"},
	"Config.SyncPeriod":            {carried, "as ByObject.SyncPeriod, when every namespace of the type has the same; refused otherwise"},
}

// checkCacheOptionFields refuses the fields of o, of its ByObject and of
// its Configs that are set and either refused or unknown.
func checkCacheOptionFields(o *cache.Options) error {
	var errs []error
	check := func(v reflect.Value, kind, where string) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if v.Field(i).IsZero() {
				continue
			}
			use, known := cacheOptionUses[kind+"."+f.Name]
			switch {
			case !known:
				errs = append(errs, fmt.Errorf("cache.Options.%s%s is set, and ctrlsyncer does not know this field of controller-runtime's %s: "+
					"it cannot tell whether the syncers can do as the cache does with it; upgrade ctrlsyncer, or give WithCacheOptions "+
					"the options without it", where, f.Name, kind))
			case use.use == refused:
				errs = append(errs, fmt.Errorf("cache.Options.%s%s is refused: %s", where, f.Name, use.why))
			}
		}
	}
	check(reflect.ValueOf(*o), "Options", "")
	configs := func(nss map[string]cache.Config, where string) {
		for _, ns := range slices.Sorted(maps.Keys(nss)) {
			check(reflect.ValueOf(nss[ns]), "Config", fmt.Sprintf("%s[%q].", where, ns))
		}
	}
	configs(o.DefaultNamespaces, "DefaultNamespaces")
	for _, obj := range byObjectKeys(o) {
		where := fmt.Sprintf("ByObject[%T]", obj)
		check(reflect.ValueOf(o.ByObject[obj]), "ByObject", where+".")
		configs(o.ByObject[obj].Namespaces, where+".Namespaces")
	}
	return errors.Join(errs...)
}

// byObjectKeys returns the keys of o.ByObject in the order of their
// types' names, for errors that come in the same order every time.
func byObjectKeys(o *cache.Options) []client.Object {
	keys := slices.Collect(maps.Keys(o.ByObject))
	slices.SortStableFunc(keys, func(a, b client.Object) int {
		return strings.Compare(fmt.Sprintf("%T %v", a, a.GetObjectKind().GroupVersionKind()), fmt.Sprintf("%T %v", b, b.GetObjectKind().GroupVersionKind()))
	})
	return keys
}

// cacheOptions is the cache's options as the Client applies them.
type cacheOptions struct {
	opts   cache.Options
	scheme *kruntime.Scheme
	mapper meta.RESTMapper
}

// newCacheOptions checks o, and tells it for each type ByObject names and
// for the others, as NewClient refuses what the syncers cannot take.
func newCacheOptions(o cache.Options, scheme *kruntime.Scheme, mapper meta.RESTMapper) (*cacheOptions, error) {
	if err := checkCacheOptionFields(&o); err != nil {
		return nil, err
	}
	c := &cacheOptions{opts: o, scheme: scheme, mapper: mapper}
	if o.Scheme != nil {
		c.scheme = o.Scheme
	}
	if o.Mapper != nil {
		c.mapper = o.Mapper
	}
	var errs []error
	for _, obj := range byObjectKeys(&o) {
		gvk, err := apiutil.GVKForObject(obj, c.scheme)
		if err != nil {
			errs = append(errs, fmt.Errorf("cache.Options.ByObject[%T]: %w", obj, err))
			continue
		}
		if _, err := c.of(reflect.TypeOf(obj), gvk); err != nil {
			errs = append(errs, err)
		}
	}
	if len(o.DefaultNamespaces) > 0 {
		if _, err := c.settings(nil, "", "the namespaced types ByObject does not name", true); err != nil {
			errs = append(errs, err)
		}
	}
	return c, errors.Join(errs...)
}

// typeSettings is what the cache's options give one type: what its
// informers would watch and how its reads would copy.
type typeSettings struct {
	namespaces []string // nil: every namespace
	label      string   // as the cache sends it: its selector's String()
	field      string
	transform  toolscache.TransformFunc
	noCopy     bool
	period     *time.Duration
}

// of returns the settings the cache's options give the type t, of the
// kind gvk: ByObject's by type, or by kind (PartialObjectMetadata,
// Unstructured and projections are read as their kind), the defaults
// otherwise.
func (c *cacheOptions) of(t reflect.Type, gvk schema.GroupVersionKind) (typeSettings, error) {
	var by *cache.ByObject
	var byName string
	for _, obj := range byObjectKeys(&c.opts) {
		objGVK, err := apiutil.GVKForObject(obj, c.scheme)
		sameKind := err == nil && objGVK == gvk
		exact := reflect.TypeOf(obj) == t && (sameKind || !anyResource(t)) // an Unstructured of another kind is not t's
		if exact || sameKind && by == nil {
			b := c.opts.ByObject[obj]
			by, byName = &b, fmt.Sprintf("ByObject[%T]", obj)
			if exact {
				break
			}
		}
	}
	namespaced, err := apiutil.IsGVKNamespaced(gvk, c.mapper)
	if err != nil {
		return typeSettings{}, fmt.Errorf("cache.Options: whether %s is namespaced: %w", gvk, err)
	}
	if by != nil && !namespaced && by.Namespaces != nil {
		return typeSettings{}, fmt.Errorf("cache.Options.%s: %s is not namespaced, but its ByObject.Namespaces setting is not nil", byName, gvk.Kind)
	}
	what := t.String()
	if anyResource(t) || t.Kind() != reflect.Pointer || t.Elem().Name() != gvk.Kind {
		what += " (" + gvk.Kind + ")" // a projection, or a type of any kind
	}
	return c.settings(by, byName, what, namespaced)
}

// knob is one setting of a namespace's, a type's or the defaults' Config,
// and the option it comes from ("" if unset).
type knob[T any] struct {
	v    T
	from string
}

// knobs is a Config whose settings know where they come from.
type knobs struct {
	label     knob[labels.Selector]
	field     knob[fields.Selector]
	transform knob[toolscache.TransformFunc]
	noCopy    knob[*bool]
	period    knob[*time.Duration]
}

func knobsOf(c cache.Config, label, field, transform, noCopy, period string) knobs {
	k := knobs{label: knob[labels.Selector]{v: c.LabelSelector}, field: knob[fields.Selector]{v: c.FieldSelector},
		transform: knob[toolscache.TransformFunc]{v: c.Transform}, noCopy: knob[*bool]{v: c.UnsafeDisableDeepCopy},
		period: knob[*time.Duration]{v: c.SyncPeriod}}
	if k.label.v != nil {
		k.label.from = label
	}
	if k.field.v != nil {
		k.field.from = field
	}
	if k.transform.v != nil {
		k.transform.from = transform
	}
	if k.noCopy.v != nil {
		k.noCopy.from = noCopy
	}
	if k.period.v != nil {
		k.period.from = period
	}
	return k
}

// configKnobs is a per-namespace Config's knobs, at path.
func configKnobs(c cache.Config, path string) knobs {
	return knobsOf(c, path+".LabelSelector", path+".FieldSelector", path+".Transform", path+".UnsafeDisableDeepCopy", path+".SyncPeriod")
}

// or fills k's unset settings from d, as the cache's defaulting does.
func (k knobs) or(d knobs) knobs {
	if k.label.from == "" {
		k.label = d.label
	}
	if k.field.from == "" {
		k.field = d.field
	}
	if k.transform.from == "" {
		k.transform = d.transform
	}
	if k.noCopy.from == "" {
		k.noCopy = d.noCopy
	}
	if k.period.from == "" {
		k.period = d.period
	}
	return k
}

// settings returns the settings of a type whose ByObject is by (nil if
// none), named byName, as the cache's New defaults them: a namespace's
// Config, then the type's, then DefaultNamespaces' for that namespace,
// then the Default* options; a type with no namespaces of its own, the
// type's, then the Default* options. The namespaces of a type must agree
// on each setting: one syncer keeps one store over its namespaces, with
// one selector, transform and resync period.
func (c *cacheOptions) settings(by *cache.ByObject, byName, what string, namespaced bool) (typeSettings, error) {
	o := &c.opts
	defaults := knobsOf(cache.Config{LabelSelector: o.DefaultLabelSelector, FieldSelector: o.DefaultFieldSelector,
		Transform: o.DefaultTransform, UnsafeDisableDeepCopy: o.DefaultUnsafeDisableDeepCopy, SyncPeriod: o.SyncPeriod},
		"DefaultLabelSelector", "DefaultFieldSelector", "DefaultTransform", "DefaultUnsafeDisableDeepCopy", "SyncPeriod")
	var typ knobs
	nss, nssName := o.DefaultNamespaces, "DefaultNamespaces"
	if by != nil {
		typ = knobsOf(cache.Config{LabelSelector: by.Label, FieldSelector: by.Field, Transform: by.Transform,
			UnsafeDisableDeepCopy: by.UnsafeDisableDeepCopy, SyncPeriod: by.SyncPeriod},
			byName+".Label", byName+".Field", byName+".Transform", byName+".UnsafeDisableDeepCopy", byName+".SyncPeriod")
		if by.Namespaces != nil {
			nss, nssName = by.Namespaces, byName+".Namespaces"
		}
	}
	if !namespaced || len(nss) == 0 {
		return typ.or(defaults).settings(nil), nil
	}
	names := slices.Sorted(maps.Keys(nss))
	per := make([]knobs, len(names))
	for i, ns := range names {
		k := configKnobs(nss[ns], fmt.Sprintf("%s[%q]", nssName, ns)).or(typ)
		if d, ok := o.DefaultNamespaces[ns]; ok {
			k = k.or(configKnobs(d, fmt.Sprintf("DefaultNamespaces[%q]", ns)))
		}
		per[i] = k.or(defaults)
	}
	var errs []error
	differ := func(setting, instead string, same func(a, b knobs) bool, show func(k knobs) string) {
		for i := range per[1:] {
			if same(per[0], per[i+1]) {
				continue
			}
			var each []string
			for j, k := range per {
				each = append(each, fmt.Sprintf("%q: %s", names[j], show(k)))
			}
			errs = append(errs, fmt.Errorf("cache.Options gives the namespaces of %s different %ss (%s), which one syncer cannot take: "+
				"it keeps one store over its namespaces, with one %s; give every namespace the same (%s), or leave the type to the Manager's cache",
				what, setting, strings.Join(each, "; "), setting, instead))
			return
		}
	}
	from := func(from string) string {
		if from == "" {
			return "none"
		}
		return "from " + from
	}
	differ("label selector", "DefaultLabelSelector or ByObject's Label",
		func(a, b knobs) bool { return str(a.label.v) == str(b.label.v) },
		func(k knobs) string { return fmt.Sprintf("%q %s", str(k.label.v), from(k.label.from)) })
	differ("field selector", "DefaultFieldSelector or ByObject's Field",
		func(a, b knobs) bool { return str(a.field.v) == str(b.field.v) },
		func(k knobs) string { return fmt.Sprintf("%q %s", str(k.field.v), from(k.field.from)) })
	differ("transform", "DefaultTransform or ByObject's Transform: a function is the same only given once",
		func(a, b knobs) bool { return a.transform.from == b.transform.from },
		func(k knobs) string { return from(k.transform.from) })
	differ("UnsafeDisableDeepCopy", "DefaultUnsafeDisableDeepCopy or ByObject's UnsafeDisableDeepCopy",
		func(a, b knobs) bool { return isTrue(a.noCopy.v) == isTrue(b.noCopy.v) },
		func(k knobs) string { return fmt.Sprintf("%t %s", isTrue(k.noCopy.v), from(k.noCopy.from)) })
	differ("SyncPeriod", "SyncPeriod or ByObject's SyncPeriod",
		func(a, b knobs) bool { return period(a.period.v) == period(b.period.v) },
		func(k knobs) string { return fmt.Sprintf("%s %s", period(k.period.v), from(k.period.from)) })
	if len(errs) > 0 {
		return typeSettings{}, errors.Join(errs...)
	}
	var namespaces []string
	if _, all := nss[cache.AllNamespaces]; !all {
		namespaces = names
	}
	return per[0].settings(namespaces), nil
}

func (k knobs) settings(namespaces []string) typeSettings {
	return typeSettings{namespaces: namespaces, label: str(k.label.v), field: str(k.field.v), transform: k.transform.v,
		noCopy: isTrue(k.noCopy.v), period: k.period.v}
}

// str is a selector as the cache sends it: "" for none.
func str(s fmt.Stringer) string {
	if s == nil || reflect.ValueOf(s).Kind() == reflect.Pointer && reflect.ValueOf(s).IsNil() {
		return ""
	}
	return s.String()
}

func isTrue(b *bool) bool { return b != nil && *b }

// period is a resync period as the cache takes it: its default when nil.
func period(d *time.Duration) time.Duration {
	if d == nil {
		return SyncPeriod
	}
	return *d
}

// syncerOptions returns the options that make a syncer watch what s
// says, given the options user the syncer gets otherwise (the Client's
// WithSyncerOptions and its own): a selector or a resync period they set
// takes the place of the cache's, and namespaces they limit it to (its
// own options) take the place of the cache's. Transforms come first.
func (s typeSettings) syncerOptions(user, own []runtime.Option, log logr.Logger) []runtime.Option {
	var out []runtime.Option
	if _, limited := runtime.NamespacesOf(own...); !limited && s.namespaces != nil {
		out = append(out, runtime.WithNamespaces(s.namespaces...))
	}
	if s.label != "" && !sets(user, runtime.WithLabelSelector("a=a"), runtime.WithLabelSelector("b=b")) {
		out = append(out, runtime.WithLabelSelector(s.label))
	}
	if s.field != "" && !sets(user, runtime.WithFieldSelector("a=a"), runtime.WithFieldSelector("b=b")) {
		out = append(out, runtime.WithFieldSelector(s.field))
	}
	if s.period != nil && !sets(user, runtime.WithResyncPeriod(time.Second), runtime.WithResyncPeriod(2*time.Second)) {
		out = append(out, runtime.WithResyncPeriod(*s.period))
	}
	if f := s.transform; f != nil {
		out = append(out, runtime.WithTransform(func(obj runtime.Object) (kept runtime.Object) {
			defer func() {
				if p := recover(); p != nil { // e.g. a transform written for the type, given a projection's object
					log.Error(fmt.Errorf("%v", p), "the cache's transform panicked: the object is kept as it came", "object", client.ObjectKeyFromObject(obj), "type", fmt.Sprintf("%T", obj))
					kept = obj
				}
			}()
			got, err := f(obj)
			if err != nil {
				log.Error(err, "the cache's transform failed: the object is kept as it came", "object", client.ObjectKeyFromObject(obj))
				return obj
			}
			if o, ok := got.(runtime.Object); ok && reflect.TypeOf(o) == reflect.TypeOf(obj) {
				return o
			}
			log.Error(fmt.Errorf("the cache's transform returned a %T for a %T", got, obj), "the object is kept as it came", "object", client.ObjectKeyFromObject(obj))
			return obj
		}))
	}
	return out
}

// sets tells whether opts set what a and b set differently: options that
// give the same syncer after either.
func sets(opts []runtime.Option, a, b runtime.Option) bool {
	return runtime.OptionsKey(append([]runtime.Option{a}, opts...)...) == runtime.OptionsKey(append([]runtime.Option{b}, opts...)...)
}

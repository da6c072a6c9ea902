package ctrlsyncer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// cacheOptionStructs are the structs of cache.Options whose fields
// WithCacheOptions takes, by the name its table gives them.
var cacheOptionStructs = map[string]reflect.Type{
	"Options":  reflect.TypeFor[cache.Options](),
	"ByObject": reflect.TypeFor[cache.ByObject](),
	"Config":   reflect.TypeFor[cache.Config](),
}

// nonZero returns a value of type t that is not its zero, for the fields
// of cache.Options.
func nonZero(t *testing.T, typ reflect.Type) (reflect.Value, bool) {
	t.Helper()
	switch typ {
	case reflect.TypeFor[map[string]cache.Config]():
		return reflect.ValueOf(map[string]cache.Config{"ns": {}}), true
	case reflect.TypeFor[map[client.Object]cache.ByObject]():
		return reflect.ValueOf(map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {}}), true
	}
	switch typ.Kind() {
	case reflect.Bool:
		return reflect.ValueOf(true).Convert(typ), true
	case reflect.Pointer:
		return reflect.New(typ.Elem()), true
	case reflect.Func:
		return reflect.MakeFunc(typ, func([]reflect.Value) []reflect.Value {
			out := make([]reflect.Value, typ.NumOut())
			for i := range out {
				out[i] = reflect.Zero(typ.Out(i))
			}
			return out
		}), true
	case reflect.Interface:
		for _, v := range []any{labels.Everything(), fields.Everything(), meta.NewDefaultRESTMapper(nil)} {
			if reflect.TypeOf(v).Implements(typ) {
				return reflect.ValueOf(v), true
			}
		}
	}
	return reflect.Value{}, false
}

// with returns cache.Options whose field name of the struct kind (one of
// cacheOptionStructs) is v, in a ByObject or a namespace's Config for
// those, and the path an error names it by.
func with(kind, name string, v reflect.Value) (cache.Options, string) {
	var o cache.Options
	switch kind {
	case "Options":
		reflect.ValueOf(&o).Elem().FieldByName(name).Set(v)
		return o, "cache.Options." + name
	case "ByObject":
		var by cache.ByObject
		reflect.ValueOf(&by).Elem().FieldByName(name).Set(v)
		o.ByObject = map[client.Object]cache.ByObject{&corev1.ConfigMap{}: by}
		return o, "cache.Options.ByObject[*v1.ConfigMap]." + name
	default:
		var c cache.Config
		reflect.ValueOf(&c).Elem().FieldByName(name).Set(v)
		o.DefaultNamespaces = map[string]cache.Config{"ns": c}
		return o, `cache.Options.DefaultNamespaces["ns"].` + name
	}
}

// Every field of controller-runtime's cache.Options, of its ByObject and
// of its Config is known to WithCacheOptions, as carried, ignored or
// refused, and named in its godoc: a field a later controller-runtime adds
// fails this test until it is decided, and, set in the options given,
// NewClient refuses it rather than drop it. A refused field set makes an
// error that names it; a carried or ignored one none.
func TestCacheOptionsFieldsAreNeverDroppedSilently(t *testing.T) {
	doc := withCacheOptionsDoc(t)
	known := map[string]bool{}
	for kind, typ := range cacheOptionStructs {
		for i := range typ.NumField() {
			f := typ.Field(i)
			path := kind + "." + f.Name
			known[path] = true
			use, ok := cacheOptionUses[path]
			if !ok {
				t.Errorf("cache.%s (%s) is not in cacheOptionUses: decide whether WithCacheOptions carries it (with the cache's meaning), ignores it (nothing a read returns changes) or refuses it, and say so in its godoc", path, f.Type)
				continue
			}
			if use.use != carried && use.use != ignored && use.use != refused || use.why == "" {
				t.Errorf("cacheOptionUses[%q] = %+v: want carried, ignored or refused, and why", path, use)
			}
			if !strings.Contains(doc, f.Name) {
				t.Errorf("the godoc of WithCacheOptions does not name %s (%s)", path, use.use)
			}
			v, ok := nonZero(t, f.Type)
			if !ok {
				t.Errorf("cache.%s: the test has no value of %s to set it to", path, f.Type)
				continue
			}
			o, where := with(kind, f.Name, v)
			err := checkCacheOptionFields(&o)
			switch {
			case use.use == refused && (err == nil || !strings.Contains(err.Error(), where)):
				t.Errorf("%s set: %v; want an error naming it", where, err)
			case use.use != refused && err != nil:
				t.Errorf("%s set (%s): %v; want no error", where, use.use, err)
			}
			// A field the table does not know is refused when set.
			delete(cacheOptionUses, path)
			err = checkCacheOptionFields(&o)
			cacheOptionUses[path] = use
			if err == nil || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), "does not know") {
				t.Errorf("%s set, unknown to the table: %v; want an error that names it and says ctrlsyncer does not know it", where, err)
			}
		}
	}
	for path := range cacheOptionUses {
		if !known[path] {
			t.Errorf("cacheOptionUses has %q, which controller-runtime's cache has no more: drop it", path)
		}
	}
}

// withCacheOptionsDoc is the godoc of WithCacheOptions.
func withCacheOptionsDoc(t *testing.T) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "namespaces.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "WithCacheOptions" && fn.Doc != nil {
			return fn.Doc.Text()
		}
	}
	t.Fatal("namespaces.go has no WithCacheOptions with a godoc")
	return ""
}

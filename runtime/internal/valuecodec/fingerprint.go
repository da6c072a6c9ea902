package valuecodec

import (
	"fmt"
	"hash/fnv"
	"io"
	"reflect"
)

// Fingerprint names the structure of t as the encoding depends on it: the
// kinds, names and order of its fields, recursively, and their tags, which
// may say what a field holds (a projected type's metav1.ObjectMeta names
// in its tag the metadata fields it keeps). A value written for one type
// must be read only where the fingerprint is the same: a field added,
// removed, renamed, moved, retyped or retagged changes it.
func Fingerprint(t reflect.Type) string {
	h := fnv.New64a()
	describe(h, t, map[reflect.Type]int{})
	return fmt.Sprintf("%016x", h.Sum64())
}

// describe writes t's structure to w; a type met again (a recursive type)
// is written as a reference to where it was first described.
func describe(w io.Writer, t reflect.Type, seen map[reflect.Type]int) {
	if i, ok := seen[t]; ok {
		fmt.Fprintf(w, "@%d;", i)
		return
	}
	seen[t] = len(seen)
	fmt.Fprintf(w, "%s %s.%s ", t.Kind(), t.PkgPath(), t.Name())
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		describe(w, t.Elem(), seen)
	case reflect.Array:
		fmt.Fprintf(w, "%d ", t.Len())
		describe(w, t.Elem(), seen)
	case reflect.Map:
		describe(w, t.Key(), seen)
		describe(w, t.Elem(), seen)
	case reflect.Struct:
		if t == timeType {
			break
		}
		fmt.Fprintf(w, "{%d ", t.NumField())
		for i := range t.NumField() {
			fmt.Fprintf(w, "%s %q ", t.Field(i).Name, t.Field(i).Tag)
			describe(w, t.Field(i).Type, seen)
		}
		io.WriteString(w, "}")
	}
	io.WriteString(w, ";")
}

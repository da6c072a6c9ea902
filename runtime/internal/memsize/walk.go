package memsize

import (
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/syncer-gen/syncer-gen/runtime/internal/intern"
)

// Sizer estimates the heap bytes values of T hold.
type Sizer[T any] struct{ p *plan }

// For returns the Sizer of T, its plan compiled on first use.
func For[T any]() Sizer[T] { return Sizer[T]{planOf(reflect.TypeFor[T]())} }

// Of returns the heap bytes v holds: for a pointer, the value it points to
// and everything reachable from it (see the package doc). The value v itself
// is not counted: it lives where the caller keeps it.
func (s Sizer[T]) Of(v T) int64 {
	if !s.p.pointers {
		return 0
	}
	var w walker
	w.walk(unsafe.Pointer(&v), s.p) // v stays on the stack: the walk only reads through pointers
	w.endRun()
	return int64(w.total)
}

// walker adds up allocations. It keeps the run of string bytes last seen,
// [runStart, runEnd): a string that starts where the run ends (or lies
// within it) is in the same allocation.
type walker struct {
	total            uintptr
	runStart, runEnd uintptr
}

// sliceHeader is the layout of every slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func (w *walker) walk(p unsafe.Pointer, pl *plan) {
	for i := range pl.ops {
		o := &pl.ops[i]
		q := unsafe.Add(p, o.off)
		switch o.kind {
		case opString:
			w.str(*(*string)(q))
		case opFlatSlice:
			if h := (*sliceHeader)(q); h.data != nil {
				w.total += allocSize(uintptr(h.cap)*o.elem.size, false)
			}
		case opSlice:
			h := (*sliceHeader)(q)
			if h.data == nil {
				continue
			}
			w.total += allocSize(uintptr(h.cap)*o.elem.size, true)
			for j := range h.len {
				w.walk(unsafe.Add(h.data, uintptr(j)*o.elem.size), o.elem)
			}
		case opPointer:
			if e := *(*unsafe.Pointer)(q); e != nil {
				w.total += allocSize(o.elem.size, o.elem.pointers)
				if len(o.elem.ops) > 0 { // not a *bool, an *int64...
					w.walk(e, o.elem)
				}
			}
		case opArray:
			for j := range o.n {
				w.walk(unsafe.Add(q, uintptr(j)*o.elem.size), o.elem)
			}
		case opMapOfStrings:
			m := *(*map[string]string)(q)
			if m == nil {
				continue
			}
			w.total += o.elem.bytes(len(m))
			for k, v := range m {
				w.str(k)
				w.str(v)
			}
		case opMapOfBytes:
			m := *(*map[string][]byte)(q)
			if m == nil {
				continue
			}
			w.total += o.elem.bytes(len(m))
			for k, v := range m {
				w.str(k)
				if v != nil {
					w.total += allocSize(uintptr(cap(v)), false)
				}
			}
		case opMapOfAny:
			w.mapOfAny(*(*map[string]any)(q))
		case opMapOfQuantities:
			m := *(*map[string]resource.Quantity)(q) // map[ResourceName]Quantity's layout
			if m == nil {
				continue
			}
			w.total += o.elem.bytes(len(m))
			for k, v := range m {
				w.str(k)
				w.quantity(v, o.elem.elem)
			}
		case opMap:
			w.reflectMap(*(*unsafe.Pointer)(q), o.elem)
		case opIface:
			w.iface(*(*[2]unsafe.Pointer)(q), o.elem.typ.NumMethod() == 0)
		}
	}
}

// quantity counts what a resource.Quantity holds (its cached string, its
// inf.Dec): only strings and pointers (see opMapOfQuantities), read here
// from the copy v, which stays on the stack.
func (w *walker) quantity(v resource.Quantity, pl *plan) {
	p := unsafe.Pointer(&v)
	for i := range pl.ops {
		o := &pl.ops[i]
		switch q := unsafe.Add(p, o.off); o.kind {
		case opString:
			w.str(*(*string)(q))
		case opPointer:
			if e := *(*unsafe.Pointer)(q); e != nil {
				w.total += allocSize(o.elem.size, o.elem.pointers)
				w.walk(e, o.elem)
			}
		}
	}
}

// str counts a string's bytes, once for a run of strings that follow one
// another in memory.
func (w *walker) str(s string) {
	n := uintptr(len(s))
	if n == 0 {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	switch {
	case p == w.runEnd:
		w.runEnd += n
	case p >= w.runStart && p+n <= w.runEnd:
	default:
		w.endRun()
		w.runStart, w.runEnd = p, p+n
	}
}

// endRun counts the run of string bytes as one allocation.
func (w *walker) endRun() {
	w.total += allocSize(w.runEnd-w.runStart, false)
	w.runStart, w.runEnd = 0, 0
}

// reflectMap counts the map m of pl's type, of any type but the common
// ones. It copies each key and value out to walk them, into scratch
// values of the plan's pool: reflect.New on every map would cost more than
// the walk. It gets the map's pointer, not the address of the field that
// holds it, so that the walk never hands reflect an address it walks
// (which would make every walked value escape to the heap).
func (w *walker) reflectMap(m unsafe.Pointer, pl *plan) {
	if m == nil {
		return
	}
	mv := reflect.ValueOf(*(*any)(unsafe.Pointer(&[2]unsafe.Pointer{pl.typeWord, m})))
	w.total += pl.bytes(mv.Len())
	key, elem := pl.key, pl.elem
	if !key.pointers && !elem.pointers {
		return
	}
	sc := pl.scratch.Get().(*scratch)
	defer pl.scratch.Put(sc)
	var it reflect.MapIter
	it.Reset(mv)
	for it.Next() {
		if key.pointers {
			sc.key.SetIterKey(&it)
			w.walk(sc.key.Addr().UnsafePointer(), key)
		}
		if elem.pointers {
			sc.elem.SetIterValue(&it)
			w.walk(sc.elem.Addr().UnsafePointer(), elem)
		}
	}
	sc.key.SetZero() // drop what the last entry referenced
	sc.elem.SetZero()
}

// scratch holds a map's key and value while they are walked.
type scratch struct{ key, elem reflect.Value }

var anyMapShape = planOf(anyMap)

// mapOfAny counts a map[string]any, as JSON decodes objects into
// (unstructured.Unstructured), without reflection for JSON's types.
func (w *walker) mapOfAny(m map[string]any) {
	if m == nil {
		return
	}
	w.total += anyMapShape.bytes(len(m))
	for k, v := range m {
		if !intern.Shared(k) { // a key many objects share, which the pool holds
			w.str(k)
		}
		w.anyValue(v)
	}
}

// anyValue counts what an interface holding v reaches: the copy it boxes
// and what that holds.
func (w *walker) anyValue(v any) {
	switch x := v.(type) {
	case nil, bool: // bools are boxed in static memory
	case string:
		if x != "" && !intern.Shared(x) { // an interned value is boxed once, by the pool
			w.total += allocSize(unsafe.Sizeof(x), true)
			w.str(x)
		}
	case int64:
		if x < 0 || x >= 256 { // smaller ones are boxed in static memory
			w.total += allocSize(8, false)
		}
	case float64:
		if x != 0 {
			w.total += allocSize(8, false)
		}
	case map[string]any:
		w.mapOfAny(x)
	case []any:
		w.total += allocSize(unsafe.Sizeof(x), true) // the boxed slice header
		if x != nil {
			w.total += allocSize(uintptr(cap(x))*unsafe.Sizeof(v), true)
		}
		for _, e := range x {
			w.anyValue(e)
		}
	default:
		w.otherAny(v)
	}
}

// otherAny counts an interface holding a value of a type JSON does not
// decode into.
func (w *walker) otherAny(v any) { w.iface(*(*[2]unsafe.Pointer)(unsafe.Pointer(&v)), true) }

// iface counts what an interface reaches, by its dynamic type, from its
// two words: its type (for an empty interface) or its itab (whose second
// word is the type), and its data.
func (w *walker) iface(words [2]unsafe.Pointer, empty bool) {
	if words[0] == nil {
		return
	}
	typ := words[0]
	if !empty {
		typ = *(*unsafe.Pointer)(unsafe.Add(words[0], ptrSize)) // abi.ITab.Type
	}
	dyn := reflect.TypeOf(*(*any)(unsafe.Pointer(&[2]unsafe.Pointer{typ, words[1]})))
	pl := planOf(dyn)
	if direct(dyn) {
		value := words[1] // the value is the data word itself
		w.walk(unsafe.Pointer(&value), pl)
		return
	}
	if pl.size == 0 {
		return
	}
	w.total += allocSize(pl.size, pl.pointers)
	if pl.pointers {
		w.walk(words[1], pl)
	}
}

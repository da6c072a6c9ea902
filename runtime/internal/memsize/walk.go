package memsize

import (
	"reflect"
	"unsafe"
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
	if o := s.p.ops; len(o) == 1 && o[0].kind == opPointer {
		// A pointer, as every Kubernetes object is: walked from where it
		// points, so that v stays on the stack.
		if e := *(*unsafe.Pointer)(unsafe.Pointer(&v)); e != nil {
			w.total += allocSize(o[0].elem.size, o[0].elem.pointers)
			w.walk(e, o[0].elem)
		}
	} else {
		walkValue(&w, v, s.p)
	}
	w.endRun()
	return int64(w.total)
}

// walkValue walks v, which is moved to the heap for it (reflect.NewAt, for
// an interface or an uncommon map in v, makes its address escape).
func walkValue[T any](w *walker, v T, p *plan) { w.walk(unsafe.Pointer(&v), p) }

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
				w.walk(e, o.elem)
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
		case opMap:
			w.reflectMap(q, o.elem)
		case opIface:
			w.iface(q, o.elem.typ)
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

// reflectMap counts a map of any type but the common ones. It copies
// each key and value out to walk them, into scratch values of the plan's
// pool: reflect.New on every map would cost more than the walk.
func (w *walker) reflectMap(q unsafe.Pointer, pl *plan) {
	m := reflect.NewAt(pl.typ, q).Elem()
	if m.IsNil() {
		return
	}
	w.total += pl.bytes(m.Len())
	key, elem := pl.key, pl.elem
	if !key.pointers && !elem.pointers {
		return
	}
	sc := pl.scratch.Get().(*scratch)
	defer pl.scratch.Put(sc)
	var it reflect.MapIter
	it.Reset(m)
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
		w.str(k)
		w.anyValue(v)
	}
}

// anyValue counts what an interface holding v reaches: the copy it boxes
// and what that holds.
func (w *walker) anyValue(v any) {
	switch x := v.(type) {
	case nil, bool: // bools are boxed in static memory
	case string:
		if x != "" {
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
func (w *walker) otherAny(v any) { w.iface(unsafe.Pointer(&v), anyType) }

// iface counts what the interface of type t at q reaches, by its dynamic type.
func (w *walker) iface(q unsafe.Pointer, t reflect.Type) {
	v := reflect.NewAt(t, q).Elem()
	if v.IsNil() {
		return
	}
	dyn := v.Elem().Type()
	pl := planOf(dyn)
	data := unsafe.Add(q, ptrSize) // the interface's data word
	if direct(dyn) {
		w.walk(data, pl) // the value is the data word itself
		return
	}
	if pl.size == 0 {
		return
	}
	boxed := *(*unsafe.Pointer)(data)
	w.total += allocSize(pl.size, pl.pointers)
	if pl.pointers {
		w.walk(boxed, pl)
	}
}

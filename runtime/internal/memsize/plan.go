package memsize

import (
	"reflect"
	"sync"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

// plan is what a value of one type reaches, compiled once per type.
type plan struct {
	typ      reflect.Type
	size     uintptr
	pointers bool           // the type holds pointers: allocations of it are scanned
	ops      []op           // what a value of typ at some address reaches, by offset
	mapShape                // for a map type
	typeWord unsafe.Pointer // for a map type: its runtime type, an empty interface's first word
}

// typeWord returns the first word of an empty interface holding a value of t.
func typeWord(t reflect.Type) unsafe.Pointer {
	v := reflect.Zero(t).Interface()
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[0]
}

// op is one thing a value reaches, at off bytes into it.
type op struct {
	kind opKind
	off  uintptr
	elem *plan // the pointee, the element of a slice or an array, the map, the interface
	n    int   // an array's length
}

type opKind uint8

const (
	opString    opKind = iota
	opFlatSlice        // a slice whose elements hold no pointers: its array only
	opSlice            // a slice whose elements hold pointers: its array and each element
	opPointer
	opArray // an array whose elements hold pointers
	opMapOfStrings
	opMapOfBytes
	opMapOfAny
	opMapOfQuantities // a map of resource.Quantity by strings (a ResourceList)
	opMap             // any other map, walked with reflect
	opIface           // an interface, walked by its dynamic type
)

var (
	plans     sync.Map // reflect.Type -> *plan, complete ones only
	compiling sync.Mutex
	location  = reflect.TypeFor[time.Location]()
	bytesMap  = reflect.TypeFor[map[string][]byte]()
	anyMap    = reflect.TypeFor[map[string]any]()
	quantity  = reflect.TypeFor[resource.Quantity]()
)

// planOf returns the plan of t, compiling it (and the types it reaches)
// on first use.
func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	compiling.Lock()
	defer compiling.Unlock()
	c := compiler{memo: map[reflect.Type]*plan{}}
	p := c.plan(t)
	for t, p := range c.memo { // published once every plan they reach is complete
		plans.Store(t, p)
	}
	return p
}

type compiler struct {
	memo map[reflect.Type]*plan // the plans of this compilation, complete once it ends
}

func (c *compiler) plan(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := c.memo[t]; ok { // a type that reaches itself
		return p
	}
	p := &plan{typ: t, size: t.Size(), pointers: hasPointers(t)}
	c.memo[t] = p
	if t.Kind() == reflect.Map {
		p.mapShape = newMapShape(t, c.plan(t.Key()), c.plan(t.Elem()))
	}
	if t.Kind() == reflect.Map {
		p.typeWord = typeWord(t)
	}
	if p.pointers {
		p.ops = c.ops(t, 0, nil)
	}
	return p
}

// ops appends what a value of t at offset off reaches.
func (c *compiler) ops(t reflect.Type, off uintptr, out []op) []op {
	switch t.Kind() {
	case reflect.String:
		return append(out, op{kind: opString, off: off})
	case reflect.Slice:
		e := c.plan(t.Elem())
		if e.pointers {
			return append(out, op{kind: opSlice, off: off, elem: e})
		}
		return append(out, op{kind: opFlatSlice, off: off, elem: e})
	case reflect.Pointer:
		if t.Elem() == location { // shared by every time of a zone
			return out
		}
		return append(out, op{kind: opPointer, off: off, elem: c.plan(t.Elem())})
	case reflect.Map:
		kind := opMap
		switch {
		case t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String:
			kind = opMapOfStrings // map[string]string's layout, whatever the strings are named
		case t == bytesMap:
			kind = opMapOfBytes
		case t == anyMap:
			kind = opMapOfAny
		case t.Key().Kind() == reflect.String && t.Elem() == quantity && onlyStringsAndPointers(c.plan(quantity)):
			kind = opMapOfQuantities
		}
		return append(out, op{kind: kind, off: off, elem: c.plan(t)})
	case reflect.Interface:
		return append(out, op{kind: opIface, off: off, elem: c.plan(t)})
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); hasPointers(f.Type) {
				out = c.ops(f.Type, off+f.Offset, out)
			}
		}
		return out
	case reflect.Array:
		if t.Len() == 0 || !hasPointers(t.Elem()) {
			return out
		}
		return append(out, op{kind: opArray, off: off, elem: c.plan(t.Elem()), n: t.Len()})
	}
	return out // numbers, bools; funcs, chans and unsafe pointers are not data a value owns
}

// onlyStringsAndPointers tells whether what pl reaches is only strings and
// pointers (walker.quantity walks nothing else).
func onlyStringsAndPointers(pl *plan) bool {
	for _, o := range pl.ops {
		if o.kind != opString && o.kind != opPointer {
			return false
		}
	}
	return true
}

// hasPointers tells whether values of t hold pointers.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Slice, reflect.Pointer, reflect.Map, reflect.Interface,
		reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	}
	return false
}

// direct tells whether an interface holds a value of t in its data word
// itself rather than a pointer to a copy: pointer-shaped types.
func direct(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Struct:
		return t.NumField() == 1 && direct(t.Field(0).Type)
	case reflect.Array:
		return t.Len() == 1 && direct(t.Elem())
	}
	return false
}

package memsize

import (
	"reflect"
	"sync"
)

// A Go map (Go 1.24 and later, internal/runtime/maps) is a header, and
// either one group of 8 slots (up to 8 entries) or a directory of tables
// of up to 1024 slots each, in groups of 8 slots behind a control word; a
// table holds at most 7/8 of its slots and doubles when full. A key or a
// value of more than 128 bytes is kept in an allocation of its own, the
// slot holding a pointer to it. The size of a map built by inserting its
// entries (as decoders do) follows from its length.

const (
	mapHeaderSize    = 48 // maps.Map
	tableHeaderSize  = 32 // maps.table
	groupSlots       = 8
	ctrlWordSize     = 8
	maxTableCapacity = 1024
	maxInlineBytes   = 128 // abi.MapMaxKeyBytes, abi.MapMaxElemBytes
	ptrSize          = 8
)

// mapShape is what the size of a map of one type depends on.
type mapShape struct {
	slot         uintptr // one slot: the key, then the value, aligned
	pointers     bool    // the groups hold pointers
	indirectKey  bool    // keys kept in allocations of their own
	indirectElem bool
	key, elem    *plan
	scratch      *sync.Pool // of *scratch, for maps walked with reflect
}

func newMapShape(t reflect.Type, key, elem *plan) mapShape {
	s := mapShape{key: key, elem: elem, pointers: key.pointers || elem.pointers, scratch: &sync.Pool{New: func() any {
		return &scratch{key: reflect.New(t.Key()).Elem(), elem: reflect.New(t.Elem()).Elem()}
	}}}
	ks, ka := t.Key().Size(), uintptr(t.Key().Align())
	es, ea := t.Elem().Size(), uintptr(t.Elem().Align())
	if ks > maxInlineBytes {
		s.indirectKey, ks, ka, s.pointers = true, ptrSize, ptrSize, true
	}
	if es > maxInlineBytes {
		s.indirectElem, es, ea, s.pointers = true, ptrSize, ptrSize, true
	}
	align := max(ka, ea)
	s.slot = alignUp(alignUp(ks, ea)+es, align)
	return s
}

func alignUp(n, a uintptr) uintptr { return (n + a - 1) &^ (a - 1) }

// bytes returns the size of a map of n entries, without what its keys and
// values point to.
func (s mapShape) bytes(n int) uintptr {
	total := allocSize(mapHeaderSize, true)
	if n == 0 {
		return total // the first group is allocated at the first insert
	}
	group := ctrlWordSize + groupSlots*s.slot
	if n <= groupSlots {
		total += allocSize(group, s.pointers)
	} else {
		capacity := 2 * groupSlots
		for n > capacity*7/8 {
			capacity *= 2
		}
		tables, perTable := 1, capacity
		if capacity > maxTableCapacity {
			tables, perTable = capacity/maxTableCapacity, maxTableCapacity
		}
		table := allocSize(tableHeaderSize, true) + allocSize(uintptr(perTable/groupSlots)*group, s.pointers)
		total += uintptr(tables)*table + allocSize(uintptr(tables)*ptrSize, true)
	}
	if s.indirectKey {
		total += uintptr(n) * allocSize(s.key.size, s.key.pointers)
	}
	if s.indirectElem {
		total += uintptr(n) * allocSize(s.elem.size, s.elem.pointers)
	}
	return total
}

package intern

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// same tells whether a and b are one string in memory.
func same(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) && len(a) == len(b) }

// A key is interned once: the same bytes give the same key, in a slab,
// apart from the bytes asked with (which may be reused); one longer than
// MaxLen is not interned.
func TestKeyOf(t *testing.T) {
	p := NewPool(100)
	buf := []byte("metadata")
	k := p.KeyOf(buf)
	if k == nil || k.String() != "metadata" || !Shared(k.String()) {
		t.Fatalf("KeyOf(metadata) = %v", k)
	}
	copy(buf, "XXXXXXXX") // the caller's buffer is reused: the key is a copy
	if k.String() != "metadata" {
		t.Fatalf("the key changed with the caller's buffer: %q", k.String())
	}
	if k2 := p.KeyOf([]byte("metadata")); k2 != k {
		t.Error("the same key twice: two Keys")
	}
	if p.KeyOf([]byte(strings.Repeat("k", MaxLen+1))) != nil {
		t.Error("a key longer than MaxLen was interned")
	}
	if Shared("metadata") || Shared("") || Shared(strings.Clone(k.String())) {
		t.Error("Shared of a string outside the slabs")
	}
}

// A value is interned the second time in a row it comes under a key, and
// stays shared while it repeats; a value that changes each time (a name,
// a uid) is never interned, and a pool's values are shared across keys.
func TestValueInternsRepeats(t *testing.T) {
	p := NewPool(100)
	kind, name := p.KeyOf([]byte("kind")), p.KeyOf([]byte("name"))
	first := kind.Value([]byte("ConfigMap")).(string)
	if first != "ConfigMap" || Shared(first) {
		t.Fatalf("first value %q shared %v", first, Shared(first))
	}
	second, third := kind.Value([]byte("ConfigMap")), kind.Value([]byte("ConfigMap"))
	if second.(string) != "ConfigMap" || !Shared(second.(string)) || !same(second.(string), third.(string)) {
		t.Errorf("repeated value not interned: %q %q", second, third)
	}
	// The same box: an interface holding it costs nothing more.
	if (*[2]unsafe.Pointer)(unsafe.Pointer(&second))[1] != (*[2]unsafe.Pointer)(unsafe.Pointer(&third))[1] {
		t.Error("an interned value boxed twice")
	}
	for i := range 10 {
		n := fmt.Sprintf("obj-%d", i)
		if v := name.Value([]byte(n)).(string); v != n || Shared(v) {
			t.Errorf("unique value %q: %q, shared %v", n, v, Shared(v))
		}
	}
	// Alternating: each value is interned on its repeat, once in the pool.
	kind.Value([]byte("Secret"))
	kind.Value([]byte("Secret"))
	if v := kind.Value([]byte("ConfigMap")).(string); Shared(v) {
		t.Error("a value after another interned on its first time back")
	}
	if v := kind.Value([]byte("ConfigMap")).(string); !same(v, second.(string)) {
		t.Error("a value interned twice in one pool")
	}
	if v := (*Key)(nil).Value([]byte("x")).(string); v != "x" || Shared(v) {
		t.Errorf("Value of no key: %q", v)
	}
	if v := kind.Value([]byte("")).(string); v != "" {
		t.Errorf("empty value: %q", v)
	}
}

// A full pool interns nothing more and gives what it has.
func TestPoolBound(t *testing.T) {
	p := NewPool(3)
	a, b := p.KeyOf([]byte("a")), p.KeyOf([]byte("b"))
	a.Value([]byte("v"))
	if v := a.Value([]byte("v")).(string); !Shared(v) { // the third string
		t.Fatal("value not interned")
	}
	if p.KeyOf([]byte("c")) != nil {
		t.Error("a fourth string interned in a pool of 3")
	}
	b.Value([]byte("w"))
	if v := b.Value([]byte("w")).(string); v != "w" || Shared(v) {
		t.Errorf("full pool: value %q shared %v", v, Shared(v))
	}
	if p.KeyOf([]byte("a")) != a {
		t.Error("full pool: a key it holds not given")
	}
}

// Slabs fill and new ones are found by Shared; concurrent use is safe
// (go test -race).
func TestSlabsAndConcurrency(t *testing.T) {
	p := NewPool(2 * slabSize / MaxLen)
	var wg sync.WaitGroup
	keys := make([][]*Key, 4)
	for g := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range slabSize / MaxLen {
				k := p.KeyOf([]byte(fmt.Sprintf("%0*d", MaxLen, i)))
				keys[g] = append(keys[g], k)
				k.Value([]byte("v"))
				k.Value([]byte("v"))
			}
		}()
	}
	wg.Wait()
	for g := range keys {
		for i, k := range keys[g] {
			if k == nil || k != keys[0][i] || !Shared(k.String()) {
				t.Fatalf("goroutine %d, key %d: %v against %v", g, i, k, keys[0][i])
			}
		}
	}
	if n := len(*slabs.Load()); n < 2 {
		t.Errorf("%d slabs for %d keys of %d bytes", n, slabSize/MaxLen, MaxLen)
	}
}

package writelog

import (
	"testing"
)

func TestFlights(t *testing.T) {
	l := New(func(string, int) bool { return false })
	endA := l.Begin("a")
	l.Begin("b")
	if got := l.Flights(func(k string) bool { return k == "a" }); len(got) != 1 || got[0].Key != "a" {
		t.Fatalf("flights of a: %v", got)
	}
	a := l.Flights(func(k string) bool { return k == "a" })[0]
	endA()
	endA() // a second end does nothing
	select {
	case <-a.Done:
	default:
		t.Fatal("a's flight is not done after its end")
	}
	if got := l.Flights(nil); len(got) != 1 || got[0].Key != "b" {
		t.Fatalf("flights after a ended: %v", got)
	}
}

// add records w at the end of k's chain.
func add(l *Log[string, int], k string, w int) {
	l.Record(k, func(int, bool) (int, bool) { return w, true })
}

func TestChainsAndPrune(t *testing.T) {
	seen := map[int]bool{}
	l := New(func(_ string, w int) bool { return seen[w] })
	add(l, "a", 1)
	add(l, "a", 2)
	add(l, "b", 3)
	chains := l.Pending(func(k string) bool { return k == "a" })
	if len(chains) != 1 || len(chains[0].Writes) != 2 || chains[0].Writes[0] != 1 || chains[0].Last() != 2 {
		t.Fatalf("chain of a, in order: %v", chains)
	}
	seen[1], seen[3] = true, true // a's first write seen, not its last: the chain stays whole
	unseen := l.Prune(l.Pending(nil))
	if len(unseen) != 1 || unseen[0].Key != "a" || l.Len() != 2 {
		t.Fatalf("after the prune: unseen %v, %d pending", unseen, l.Len())
	}
	pending := l.Pending(nil)
	add(l, "a", 4) // recorded after Pending: not asked about, so kept
	seen[2] = true
	l.Prune(pending)
	if got := l.Pending(nil); len(got) != 1 || len(got[0].Writes) != 1 || got[0].Last() != 4 || l.Len() != 1 {
		t.Fatalf("after a prune that saw a's chain up to 2: %v, %d pending", got, l.Len())
	}
}

// Record makes each write from the one before it in its key's chain, and
// may record nothing.
func TestRecordChains(t *testing.T) {
	l := New(func(string, int) bool { return false })
	var prevs []int
	next := func(prev int, ok bool) (int, bool) {
		if !ok {
			prev = 0
		}
		prevs = append(prevs, prev)
		return prev + 10, true
	}
	l.Record("a", next)
	l.Record("a", next)
	l.Record("b", next)
	l.Record("a", func(int, bool) (int, bool) { return 0, false })
	if len(prevs) != 3 || prevs[0] != 0 || prevs[1] != 10 || prevs[2] != 0 {
		t.Fatalf("writes made from %v, want [0 10 0]", prevs)
	}
	if l.Len() != 3 {
		t.Fatalf("%d pending, want 3 (a Record that makes nothing records nothing)", l.Len())
	}
}

// The log does not grow with the writes ever made: Record prunes what was
// seen once the log has doubled, and never what was not.
func TestRecordPrunes(t *testing.T) {
	l := New(func(string, int) bool { return true })
	for i := range 10 * minPrune {
		add(l, "a", i)
		if l.Len() > minPrune {
			t.Fatalf("%d writes pending after %d records, all seen", l.Len(), i+1)
		}
	}
	never := New(func(string, int) bool { return false })
	for i := range 10 * minPrune {
		add(never, string(rune('a'+i%7)), i)
	}
	if never.Len() != 10*minPrune {
		t.Fatalf("%d writes pending of %d recorded, none seen: a prune dropped a write not seen", never.Len(), 10*minPrune)
	}
}

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

func TestPendingAndPrune(t *testing.T) {
	seen := map[int]bool{}
	l := New(func(_ string, w int) bool { return seen[w] })
	l.Record("a", 1)
	l.Record("a", 2)
	l.Record("b", 3)
	if got := l.Pending(func(k string) bool { return k == "a" }); len(got) != 2 || got[0].Write != 1 || got[1].Write != 2 {
		t.Fatalf("pending of a, in order: %v", got)
	}
	seen[1], seen[3] = true, true
	unseen := l.Prune(l.Pending(nil))
	if len(unseen) != 1 || unseen[0].Write != 2 || l.Len() != 1 {
		t.Fatalf("after the prune: unseen %v, %d pending", unseen, l.Len())
	}
}

// The log does not grow with the writes ever made: Record prunes what was
// seen once the log has doubled.
func TestRecordPrunes(t *testing.T) {
	l := New(func(string, int) bool { return true })
	for i := range 10 * minPrune {
		l.Record("a", i)
		if l.Len() > minPrune {
			t.Fatalf("%d writes pending after %d records, all seen", l.Len(), i+1)
		}
	}
}

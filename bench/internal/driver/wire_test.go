package driver

import "testing"

func TestDigest(t *testing.T) {
	a := Digest([]string{"ns/a 1", "ns/b 2"})
	for _, tc := range []struct {
		keys []string
		same bool
	}{
		{[]string{"ns/b 2", "ns/a 1"}, true}, // any order
		{[]string{"ns/a 1", "ns/b 3"}, false},
		{[]string{"ns/a 1"}, false},
		{[]string{"ns/a 1", "ns/b 2", "ns/c 1"}, false},
	} {
		if got := Digest(tc.keys); (got == a) != tc.same {
			t.Errorf("digest(%q) = %s, of the first %s: same %v, want %v", tc.keys, got, a, got == a, tc.same)
		}
	}
	if a[:2] != "2:" {
		t.Errorf("digest %s does not start with the count", a)
	}
}

package driver

import (
	"os"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	line := "4242 (kube (api) server) S 17 4242 4242 0 -1 4194560 1000 0 0 0 250 150 0 0 20 0 12 0 100 1000000 2000 18446744073709551615\n"
	st, err := parseProcStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if st.comm != "kube (api) server" || st.ppid != 17 || st.cpu != 4*time.Second {
		t.Errorf("parseProcStat = %+v", st)
	}
	for _, bad := range []string{"", "1 (x S 1", "1 (x) S 1 2 3", "1 (x) S p 1 1 0 -1 0 0 0 0 0 a b"} {
		if _, err := parseProcStat(bad); err == nil {
			t.Errorf("parseProcStat(%q) gave no error", bad)
		}
	}
}

func TestReadProcStatOfSelf(t *testing.T) {
	st, err := readProcStat(os.Getpid())
	if err != nil || st.ppid != os.Getppid() {
		t.Errorf("readProcStat(self) = %+v, %v", st, err)
	}
}

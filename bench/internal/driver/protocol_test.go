package driver

import (
	"strings"
	"testing"
)

func TestMessagesRoundTrip(t *testing.T) {
	var b strings.Builder
	in := SyncReport{SyncSeconds: 1.5, Objects: 3, HWMBytes: 42, Note: "mode=watchlist"}
	if err := WriteMsg(&b, MsgSynced, in); err != nil {
		t.Fatal(err)
	}
	var out SyncReport
	if err := ParseMsg(strings.TrimSuffix(b.String(), "\n"), MsgSynced, &out); err != nil || out != in {
		t.Errorf("round trip: %+v, %v", out, err)
	}
	if err := ParseMsg(b.String(), MsgExit, &out); err == nil {
		t.Error("a synced message was taken for exit")
	}
	if err := ParseMsg("synced {", MsgSynced, &out); err == nil {
		t.Error("bad JSON accepted")
	}
}

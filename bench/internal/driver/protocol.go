package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// A child talks to the parent in lines on its stdout, "<kind> <json>", and
// is told what to do in lines on its stdin:
//
//	child:  ready {}                with -barrier only: set up, waiting
//	parent: go                      start work
//	child:  synced {syncReport}     once synced (or it exits with an error)
//	parent: steady                  start the steady state
//	child:  ready {}
//	parent: end <n>                 n updates were written; report once all are handled
//	child:  steady {steadyReport}
//	parent: quiet <settle> <window> wait settle, then measure window with no event
//	child:  quiet {quietReport}
//	parent: probe                   count requests from now on
//	child:  ready {}
//	parent: requests                say what was counted
//	child:  requests {requestsReport}
//	parent: exit
//	child:  exit {exitReport}       and exits
const (
	MsgSynced = "synced"
	MsgReady  = "ready"
	MsgSteady = "steady"
	MsgExit   = "exit"
	CmdGo     = "go"
	CmdSteady = "steady"
	CmdEnd    = "end"
	CmdExit   = "exit"
	CmdProbe  = "probe"
	// CmdRequests asks, and msgRequests answers, what was counted.
	CmdRequests = "requests"
	MsgRequests = "requests"
)

// RequestsReport is the requests of the resource a child sent since the
// parent said probe, by requestKind.
type RequestsReport struct {
	Kinds map[string]int `json:"kinds"`
}

// SyncReport is what a child measured up to synced.
type SyncReport struct {
	SyncSeconds     float64 `json:"syncSeconds"`
	Objects         int     `json:"objects"`
	HWMBytes        int64   `json:"hwmBytes"`
	TotalAllocBytes uint64  `json:"totalAllocBytes"`
	NumGC           uint32  `json:"numGC"`
	Note            string  `json:"note,omitempty"`
	// BytesRead is what the child read from its sockets to the server
	// (TLS records, HTTP/2 frames, gzip when compressed) up to synced.
	BytesRead int64 `json:"bytesRead"`
	// StoreDigest is digest() of the store's names and resourceVersions (-digest).
	StoreDigest string `json:"storeDigest,omitempty"`
	// StoreBytes is what our syncer's store says it holds (Store.Bytes);
	// 0 for the other contenders.
	StoreBytes int64 `json:"storeBytes,omitempty"`
}

// SteadyReport is what a child measured during the steady state.
type SteadyReport struct {
	Events     int     `json:"events"`
	CPUSeconds float64 `json:"cpuSeconds"`
	// Seconds is the wall time CPUSeconds is counted over: from the
	// steady command to the last update handled.
	Seconds       float64 `json:"seconds"`
	LagP50Seconds float64 `json:"lagP50Seconds"`
	LagP99Seconds float64 `json:"lagP99Seconds"`
	// Memory once every update reached the lag handler: peak RSS, and the
	// heap still in use after a garbage collection.
	HWMBytes      int64  `json:"hwmBytes"`
	LiveHeapBytes uint64 `json:"liveHeapBytes"`
	// Requests is the number of LIST and WATCH requests on the resource:
	// each is a watch restart.
	Requests int `json:"requests"`
	// Restarts are our syncer's Metrics.Reconnected and Relisted calls.
	Restarts       int    `json:"restarts,omitempty"`
	RestartReasons string `json:"restartReasons,omitempty"`
	// The slow handler, for the contenders that have one: its calls and
	// the time they took, the calls still waiting for it then (client-go: Events - SlowCalls, as
	// its listeners get every event), and our queue's largest depth.
	SlowCalls       int64   `json:"slowCalls,omitempty"`
	SlowBusySeconds float64 `json:"slowBusySeconds,omitempty"` // time spent in its calls
	SlowPending     int     `json:"slowPending,omitempty"`
	SlowMaxDepth    int     `json:"slowMaxDepth,omitempty"`
}

// QuietReport is what a synced process cost over a window with no event,
// read from outside it (ReadThreads): its threads' CPU time and voluntary
// context switches (each a thread that went to sleep, so one wake-up
// each).
type QuietReport struct {
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpuSeconds"`
	Wakeups    int64   `json:"wakeups"`
	// SettleSeconds is how long after sync the window began: once no
	// thread had woken for a second, or at the longest settle.
	SettleSeconds float64 `json:"settleSeconds"`
	// Busiest is the most wake-ups of any one thread in the window.
	Busiest int64 `json:"busiest"`
}

// ExitReport is what a child measured at exit.
type ExitReport struct {
	HWMBytes int64 `json:"hwmBytes"`
}

func WriteMsg(w io.Writer, kind string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s %s\n", kind, b)
	return err
}

// ParseMsg splits a child's line and decodes its JSON into v when the kind
// is want.
func ParseMsg(line, want string, v any) error {
	kind, body, _ := strings.Cut(line, " ")
	if kind != want {
		return fmt.Errorf("child said %q, expected %s", truncate(line, 200), want)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		return fmt.Errorf("child's %s message: %w", want, err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

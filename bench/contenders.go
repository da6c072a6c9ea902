package main

// contender is one way of getting the objects, run in its own process.
type contender struct {
	name string
	// steady: the contender also runs the steady-state round.
	steady bool
	// slow: the contender has a second handler, slow in the steady state.
	slow bool
	// env is added to the child's environment (which is otherwise the
	// parent's, so GOGC and GOMAXPROCS are the same for every contender).
	env []string
	// what says what it does, for the table's legend.
	what string
}

// Names of the contenders the ratios are computed from.
const (
	floorRead     = "floor-read"
	floorDecode   = "floor-decode"
	keepAll       = "keep-all"
	clientGoWatch = "client-go-watchlist"
	clientGoList  = "client-go-list"
	ours          = "ours"
	oursStrip     = "ours-strip"
	oursSlow      = "ours-slow-handler"
	clientGoSlow  = "client-go-slow-handler"
	watchListGate = "KUBE_FEATURE_WatchListClient"
)

var contenders = []contender{
	{name: floorRead, what: "raw WatchList stream (uncompressed, as ours asks) to the end bookmark; frames and event types only"},
	{name: floorDecode, steady: true, what: "same, each object decoded into its typed struct and dropped"},
	{name: keepAll, what: "same, each object kept in a plain map (memory floor)"},
	{name: clientGoWatch, steady: true, env: []string{watchListGate + "=true"},
		what: "client-go SharedIndexInformer, WatchListClient on, protobuf"},
	{name: clientGoList, env: []string{watchListGate + "=false"},
		what: "client-go SharedIndexInformer, WatchListClient off (LIST + WATCH), protobuf"},
	{name: ours, steady: true, what: "syncer-gen's generated syncer (examples/builtin; runtime.New for secrets), default options"},
	{name: oursStrip, what: "the same with runtime.WithStripManagedFields()"},
	{name: oursSlow, steady: true, slow: true,
		what: "ours with a second handler that sleeps 1 ms per call in the steady state"},
	{name: clientGoSlow, steady: true, slow: true, env: []string{watchListGate + "=true"},
		what: "client-go-watchlist with a second handler that sleeps 1 ms per call in the steady state"},
}

func contenderNames() []string {
	out := make([]string, len(contenders))
	for i, c := range contenders {
		out[i] = c.name
	}
	return out
}

func contenderByName(name string) (contender, bool) {
	for _, c := range contenders {
		if c.name == name {
			return c, true
		}
	}
	return contender{}, false
}

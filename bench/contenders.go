package main

import "github.com/syncer-gen/syncer-gen/bench/internal/driver"

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

var contenders = []driver.Contender{
	{Name: floorRead, What: "raw WatchList stream (uncompressed, as ours asks) to the end bookmark; frames and event types only"},
	{Name: floorDecode, Steady: true, What: "same, each object decoded into its typed struct and dropped"},
	{Name: keepAll, What: "same, each object kept in a plain map (memory floor)"},
	{Name: clientGoWatch, Steady: true, Env: []string{watchListGate + "=true"},
		What: "client-go SharedIndexInformer, WatchListClient on, protobuf"},
	{Name: clientGoList, Env: []string{watchListGate + "=false"},
		What: "client-go SharedIndexInformer, WatchListClient off (LIST + WATCH), protobuf"},
	{Name: ours, Steady: true, What: "syncer-gen's generated syncer (examples/builtin; runtime.New for secrets), default options"},
	{Name: oursStrip, What: "the same with runtime.WithStripManagedFields()"},
	{Name: oursSlow, Steady: true, Slow: true,
		What: "ours with a second handler that sleeps 1 ms per call in the steady state"},
	{Name: clientGoSlow, Steady: true, Slow: true, Env: []string{watchListGate + "=true"},
		What: "client-go-watchlist with a second handler that sleeps 1 ms per call in the steady state"},
}

func contenderNames() []string {
	out := make([]string, len(contenders))
	for i, c := range contenders {
		out[i] = c.Name
	}
	return out
}

func contenderByName(name string) (driver.Contender, bool) {
	for _, c := range contenders {
		if c.Name == name {
			return c, true
		}
	}
	return driver.Contender{}, false
}

package main

import (
	"fmt"
	"strings"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// The contenders' names, as the programs that run them know them.
const (
	floorRead         = child.FloorRead
	floorDecode       = child.FloorDecode
	keepAll           = child.KeepAll
	floorWarm         = child.FloorWarm
	floorWarmFile     = child.FloorWarmFile
	clientGoWatch     = child.ClientGoWatch
	clientGoList      = child.ClientGoList
	clientGoSlow      = child.ClientGoSlow
	clientGoStrip     = child.ClientGoStrip
	clientGoDynamic   = child.ClientGoDynamic
	clientGoMetadata  = child.ClientGoMetadata
	ours              = child.Ours
	oursStrip         = child.OursStrip
	oursSlow          = child.OursSlow
	oursWarm          = child.OursWarm
	oursWarmNewServer = child.OursWarmNewServer
	oursCompressed    = child.OursCompressed
	oursList          = child.OursList
	oursWatchList     = child.OursWatchList
	oursProjected     = child.OursProjected
	oursMetadata      = child.OursMetadata
	oursUnstructured  = child.OursUnstructured
	oursResync        = child.OursResync
	oursDrift         = child.OursDrift
	oursSnapshot      = child.OursSnapshot
	crCache           = child.CRCache
	crSyncer          = child.CRSyncer
	crMetadata        = child.CRMetadata
	watchListGate     = "KUBE_FEATURE_WatchListClient"

	clientGoWatchNoGzip = clientGoWatch + noGzip
	clientGoListNoGzip  = clientGoList + noGzip
	clientGoSlowNoGzip  = clientGoSlow + noGzip
)

// noGzip ends the name of a client-go contender run with compression off
// (rest.Config.DisableCompression: its transport does not ask for gzip),
// as ours asks by default: a ratio of ours against client-go then measures
// the syncer, against the same contender without it gzip too. The program
// runs the contender its name names without the suffix (child.RunAs).
const noGzip = child.NoGzip

// withoutGzip returns c run with compression off.
func withoutGzip(c driver.Contender) driver.Contender {
	c.Name += noGzip
	c.Quiet, c.Slope = false, false // the hot path's figures: gzip's share is small, and each costs seconds
	c.What += "; compression off (rest.Config.DisableCompression), as ours by default"
	return c
}

var contenders = andWithoutGzip([]driver.Contender{
	{Name: floorRead, What: "raw WatchList stream (uncompressed, as ours asks) to the end bookmark; frames and event types only"},
	{Name: floorDecode, Steady: true, Quiet: true, Slope: true, What: "same, each object decoded into its typed struct and dropped"},
	{Name: keepAll, What: "same, each object kept in a plain map (memory floor)"},
	{Name: clientGoWatch, Steady: true, Quiet: true, Slope: true, Env: []string{watchListGate + "=true"},
		What: "client-go SharedIndexInformer, WatchListClient on, protobuf"},
	{Name: clientGoList, Env: []string{watchListGate + "=false"},
		What: "client-go SharedIndexInformer, WatchListClient off (LIST + WATCH), protobuf"},
	{Name: ours, Steady: true, Quiet: true, Slope: true, What: "syncer-gen's generated syncer (examples/builtin; runtime.New for secrets), default options"},
	{Name: oursStrip, What: "the same with runtime.WithStripManagedFields()"},
	{Name: oursSlow, Steady: true, Slow: true,
		What: "ours with a second handler that sleeps 1 ms per call in the steady state"},
	{Name: clientGoSlow, Steady: true, Slow: true, Env: []string{watchListGate + "=true"},
		What: "client-go-watchlist with a second handler that sleeps 1 ms per call in the steady state"},
	// Each mechanism a program turns on, idle only (issue 44).
	{Name: oursResync, Quiet: true, What: fmt.Sprintf("ours with runtime.WithResyncPeriod(%s), one handler; idle only", child.MechanismPeriod)},
	{Name: oursDrift, Quiet: true, What: fmt.Sprintf("ours with runtime.WithDriftCheck(%s); idle only", child.MechanismPeriod)},
	{Name: oursSnapshot, Quiet: true, What: fmt.Sprintf("ours with runtime.WithSnapshot and WithSnapshotInterval(%s); idle only", child.MechanismPeriod)},
})

// andWithoutGzip returns cs with each client-go contender followed by the
// same with compression off.
func andWithoutGzip(cs []driver.Contender) []driver.Contender {
	var out []driver.Contender
	for _, c := range cs {
		out = append(out, c)
		if isClientGo(c.Name) {
			out = append(out, withoutGzip(c))
		}
	}
	return out
}

// isClientGo tells whether a contender is client-go's (controller-runtime's
// cache is client-go's informer too).
func isClientGo(name string) bool {
	return strings.HasPrefix(name, "client-go") || strings.HasPrefix(name, crCache) || strings.HasPrefix(name, crMetadata)
}

func contenderNames() []string { return namesOf(contenders) }

// namesOf returns the names of cs, in order.
func namesOf(cs []driver.Contender) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
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

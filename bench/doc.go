// Command bench measures syncer-gen's runtime against client-go's informer
// and against the floors of the WatchList stream, in one run, on one real
// etcd + kube-apiserver that it starts and stops itself.
//
//	make bench                                   # defaults: 20,000 ConfigMaps of 2 KB, 3 rounds
//	make bench BENCH_FLAGS='-n 5000 -rounds 5'   # smaller, more rounds
//	go run ./bench -profile /tmp/prof            # also write pprof profiles of every child
//
// It creates N objects in one namespace, then runs each contender as its
// own process (this binary, re-executed with a hidden subcommand and a
// kubeconfig), round after round, interleaved. Each child reports the time
// from its start of work to synced, its peak RSS (VmHWM) right after sync
// and at exit, its total allocations, and the number of objects it saw,
// which must equal N. The contenders:
//
//	floor-read           raw WatchList stream read to the end bookmark; only frame boundaries and event types decoded
//	floor-decode         the same, each object decoded into its typed struct and dropped
//	keep-all             the same, each object kept in a plain map: the memory floor for the data
//	client-go-watchlist  client-go SharedIndexInformer, WatchListClient on
//	client-go-list       client-go SharedIndexInformer, WatchListClient off (LIST + WATCH)
//	ours                 syncer-gen's generated ConfigMapSyncer, default options
//	ours-strip           syncer-gen's syncer with runtime.WithStripManagedFields()
//
// floor-decode, ours and client-go-watchlist then get a steady stream of
// updates written by the parent (floor-decode keeps reading its stream and
// decodes each update: the floor of the steady state); each update carries
// its write time in an annotation, and the child reports its CPU seconds
// per 1,000 events handled and the lag from write to handler.
//
// The last line is machine-readable:
//
//	bench: time_vs_floor=<x> rss_vs_keepall=<x> rss_vs_clientgo=<x> time_vs_clientgo=<x> rss_strip_vs_keepall=<x> cpu_per_event_vs_clientgo=<x>
package main

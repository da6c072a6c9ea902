// Command bench measures syncer-gen's runtime against client-go's informer
// and against the floors of the WatchList stream, in one run, on one real
// etcd + kube-apiserver that it starts and stops itself.
//
//	make bench                                   # defaults: 20,000 ConfigMaps of 2 KB, 3 rounds
//	make bench BENCH_FLAGS='-n 5000 -rounds 5'   # smaller, more rounds
//	go run ./bench -profile /tmp/prof            # also write pprof profiles of every child
//	go run ./bench -kube-version v1.36.3         # another kube-apiserver the test bed builds
//	go run ./bench -watchlist-compression=false  # 1.37 without gzip of WatchList responses
//	go run ./bench -parts server-cost,warm -clients 4   # only some parts (contenders, server-cost, crd, warm, shard, wave, restart, fleet, projection, metadata, consistency, lag, named)
//	go run ./bench -charts ''                    # no charts
//
// Besides its tables, a run draws a chart of each part that ran,
// docs/bench-<part>.svg (-charts names the folder; none with -profile;
// the machinery of the runs, reports and charts is bench/internal/driver,
// each part a file of this package):
// each figure's medians as horizontal bars, one per contender, floors,
// ours and client-go in their own colours, and dashed lines at the
// references its ratios are taken against.
//
// The server is the test bed's default kube-apiserver (v1.37.2) unless
// -kube-version or $TESTBED_KUBE_VERSION names another; the setup lines
// name it and say whether it gzips WatchList responses (WatchListCompression,
// on by default since 1.37), as a WatchList request that accepts gzip
// finds it. Every contender's transport accepts gzip, as Go's does.
//
// Before anything else it builds the programs the contenders run in, each
// a binary of its own with only what that kind of program imports
// (bench/internal/cmd: floor, the stream and the API types; ours, the
// runtime and the generated packages; dynamic, the runtime and
// dynamicsyncer; clientgo, client-go's clientset and informers, its
// metadata and dynamic informers among them; crcache and crsyncer,
// controller-runtime's Manager with its cache or with the syncer; fleet,
// the fleet part's replicas), and
// examples/builtin, the projection part's node agent, so that a
// contender's RSS holds its own code and no other's (bench/programs.go;
// the shared child side is bench/internal/child). It then creates N
// objects in one namespace and runs each contender as its own process,
// once on an empty namespace (idle: what its program takes before any
// object), then round after round, interleaved. Each child reports the
// time from its start of work to synced, its peak RSS (VmHWM) right after
// sync and at exit, its total allocations, and the number of objects it
// saw, which must equal N; the parent samples its RssAnon (/proc/<pid>/status,
// every 5 ms up to synced: the memory that is not the binary's pages) and
// keeps the largest. The contenders:
//
//	floor-read           raw WatchList stream (uncompressed, as ours) read to the end bookmark; only frame boundaries and event types decoded
//	floor-decode         the same, each object decoded into its typed struct and dropped
//	keep-all             the same, each object kept in a plain map: the memory floor for the data
//	floor-warm           the warm part's floor: ours-warm's snapshot file read and each object decoded, while the same metadata-only LIST as ours' is read
//	floor-warm-file      the snapshot file read and each object decoded, nothing else
//	client-go-watchlist  client-go SharedIndexInformer, WatchListClient on
//	client-go-list       client-go SharedIndexInformer, WatchListClient off (LIST + WATCH)
//	ours                 syncer-gen's generated ConfigMapSyncer, default options
//	ours-strip           syncer-gen's syncer with runtime.WithStripManagedFields()
//	ours-slow-handler    ours with a second handler that sleeps 1 ms per call in the steady state
//	client-go-slow-handler  client-go-watchlist with the same second handler
//	<client-go contender>-nogzip  the same with compression off (rest.Config.DisableCompression), as ours asks by default
//
// Every client-go contender of every part also runs with compression off,
// named with -nogzip, so that a ratio of ours against client-go says
// whether it measures the syncer or gzip; the keys below keep client-go's
// default (gzip), and the tables show the -nogzip ratios beside them.
//
// The server-cost part also runs ours-compressed (runtime.WithCompression)
// and ours-list (runtime.WithoutWatchList): what each request costs kube-apiserver.
//
// floor-decode, ours, client-go-watchlist and the two slow-handler
// contenders then get a steady stream of updates written by the parent
// (floor-decode keeps reading its stream and decodes each update: the floor
// of the steady state); each update carries its write time in an
// annotation, and the child reports its CPU seconds per 1,000 events
// handled and the lag from write to handler, then its peak RSS and live
// heap, and the LIST and WATCH requests it sent meanwhile (each one a
// watch restart).
//
// Two costs of the hot path are measured apart (issue 44). Idle: once
// synced, before the steady state, floor-decode (its watch open), ours,
// client-go-watchlist and ours with each mechanism a program turns on
// (ours-resync, ours-drift-check, ours-snapshot, at a period of 5s; idle
// only, over three periods), in the crd part ours and cr-cache, and in the projection part the
// node agent on its -agent-pods pods with floor-decode and
// client-go-watchlist of the same pods (its field selector), are measured
// from outside their process (/proc/<pid>/task/*: the CPU time and the
// voluntary context switches of every thread, so that measuring wakes
// none): after a settle that lasts until no thread woke for a second (at
// most -quiet-settle, 10s), over -quiet (35s: the HTTP/2 health-check
// ping of client-go's transport, which every contender uses, comes 30s
// after the last frame) with no event. Marginal: after the steady state,
// floor-decode, ours and client-go-watchlist (and, in the projection part,
// floor-decode and ours-projected) run a phase of -slope-duration (5s) at each of
// -slope-rates (1000,3000 updates/s), and the slope of their CPU per second
// against the updates per second (a least-squares line over the steady
// state and the phases) is their CPU per event, without what they burn
// per second whatever happens.
//
// The slow-handler contenders show what a handler that cannot keep up
// costs: the other handler's lag against the same contender without the
// slow one, watch restarts (ours: Metrics.Reconnected and Relisted;
// client-go: only the requests are observable), the slow handler's calls
// against the events (ours coalesces the events of an object it has not
// received yet), the calls waiting for it once the other handler had every
// update, its largest queue (ours; bounded by the objects updated, see
// -steady-objects) and memory. A 1 ms handler falls behind only above
// about 900 updates/s: use -rate and -steady-writers to write that fast,
// and read the achieved rate in the table.
//
// More parts follow the contenders (-parts chooses; shard, wave, restart
// and fleet are described in docs/benchmarks.md):
//
//   - server-cost: -clients (8) processes of one contender start at once,
//     released together from a barrier once each is set up, against the
//     same objects: ours, client-go-watchlist, client-go-list, and
//     ours-warm (one client of ours syncs cold against the row's
//     kube-apiserver and saves a snapshot, each client gets a copy, the
//     parent updates 1% of the objects, deletes 1% and creates 1%, and the
//     clients start from the snapshot: clients restarted, the server not).
//     For each: the slowest client's time to synced, and kube-apiserver's
//     RSS when its peak is reset (clear_refs) before the clients go, its
//     peak (VmHWM) over that once the last one synced, its CPU
//     (utime+stime) and the bytes it allocated (go_memstats_alloc_bytes_total
//     of its /metrics) meanwhile. The peak depends on when the apiserver's
//     garbage collector runs; the bytes allocated count the work. kube-apiserver is restarted (same etcd) and
//     let go idle before each row: memory that earlier work left resident
//     would otherwise absorb a row's garbage without raising the peak.
//   - crd: N Widgets (examples/crd, JSON) with the same payload in an
//     annotation; ours (the generated WidgetSyncer) against client-go's
//     SharedIndexInformer over *Widget (a ListWatch on a typed REST
//     client, what informer-gen and controller-runtime build) and its
//     dynamic informer, each keeping the two indexes the WidgetSyncer's
//     markers declare (owner, color).
//   - warm: each round ours syncs cold with a snapshot file and exits
//     (saving it), the parent churns 1% / 1% / 1% as above, then ours-warm
//     (from the snapshot), floor-warm and floor-warm-file (the same file),
//     ours (cold) and client-go-watchlist sync; each
//     reports the bytes it read from its sockets to the server
//     (rest.Config.Dial wrapped) up to synced. The stores of ours-warm and
//     ours must equal a consistent metadata-only LIST in names and
//     resourceVersions, or the benchmark fails.
//   - projection: -proj-pods (20,000) pods shaped like a Deployment's
//     (internal/deploypod), each written by three field managers (created,
//     labels and annotations applied server-side, status through the
//     status subresource), synced by floor-read, floor-decode, client-go's
//     informer with and without its managedFields-stripping transform (and
//     -nogzip), ours-strip and ours-projected, with a steady state of label
//     updates; then -proj-crs (2,000) widgets of -proj-cr-size bytes, the
//     full WidgetSyncer against ours-projected (the ours program's NodePod and
//     WidgetView syncers). Between the two, examples/builtin as a node agent
//     (--resource nodepods --node <node>, its own binary, run as its users
//     run it) syncs the -agent-pods (250) pods of its node, Deployment-shaped
//     and in a namespace of their own, and a node of none (idle); the parent
//     reads its peak RSS (VmHWM) and RssFile once it printed its synced
//     line, samples its RssAnon, then interrupts it.
//   - metadata: -meta-n (5,000) ConfigMaps of -meta-size (64 KiB) of data in
//     a namespace of their own, created once for every round: our metadata
//     syncer (ours-metadata, dynamicsyncer.NewMetadata, in the dynamic
//     program), the generated projection of a ConfigMap's metadata
//     (ours-projected, ConfigMapMeta), client-go's metadata informer
//     (client-go-metadata), a controller-runtime Manager's metadata-only
//     cache (cr-metadata, an informer of PartialObjectMetadata) and the full
//     ConfigMapSyncer (ours); then our unstructured syncer
//     (ours-unstructured, dynamicsyncer.NewUnstructured) and client-go's
//     dynamic informer (client-go-dynamic) on the contenders part's objects.
//     Each run reports the bytes the child read from its sockets up to
//     synced (rest.Config.Dial wrapped), and kube-apiserver's CPU (its
//     threads' run time, /proc/<pid>/task/*/schedstat, to the nanosecond)
//     and allocated bytes from the child's start of work (a -barrier
//     release) to its synced report.
//   - named: -named-n (10,000) Secrets of -named-size (64 KiB) of data in a
//     namespace of their own (bench-named), created once for every round,
//     read by name (issue 45): our syncer over 20 and over 1,000 names
//     (ours-named-20, ours-named-1000: runtime.WithNames, a WatchList of
//     each name), over 20 without WatchList (ours-named-list-20), a
//     controller-runtime Manager's Client Getting the 20 (cr-cache-named-20,
//     an informer of every Secret), our metadata syncer of every Secret
//     plus a GET of each named one (ours-metadata-gets-20 and -1000), and
//     our syncer of every Secret (ours). Each reports the bytes it read up
//     to synced, its peak RSS over its idle peak (the same names in an
//     empty namespace), the lag of a steady state of 50 updates/s over the
//     first 20 Secrets, and kube-apiserver's CPU to sync and per update of
//     the steady state, the goroutines the contender's requests hold
//     (go_goroutines) and its RSS.
//
// The last line is machine-readable:
//
//	bench: time_vs_floor=<x> rss_vs_keepall=<x> rss_vs_clientgo=<x> time_vs_clientgo=<x> rss_strip_vs_keepall=<x> cpu_per_event_vs_clientgo=<x> slow_lag_p50_vs_fast=<x> slow_restarts=<n> slow_rss_vs_clientgo=<x> server_rss_vs_clientgo_list=<x> server_cpu_vs_clientgo_watchlist=<x> crd_time_vs_clientgo=<x> crd_rss_vs_clientgo=<x> warm_time_vs_cold=<x> warm_bytes_vs_cold=<x> cpu_per_event_vs_floor=<x> shard_time_vs_unsharded=<x> shard_rss_vs_unsharded=<x> shard_server_cpu_vs_unsharded=<x> cr_time_vs_cache=<x> cr_rss_vs_cache=<x> cold_server_cpu_vs_clientgo_best=<x> wave_warm_cpu_vs_clientgo=<x> wave_warm_cpu_vs_clientgo_list=<x> apiserver_restart_cpu_vs_clientgo=<x> takeover_s=<s> proj_time_vs_floor_read=<x> proj_rss_vs_clientgo_strip=<x> proj_cpu_per_event_vs_floor_decode=<x> proj_crd_time_vs_full=<x> proj_crd_rss_vs_full=<x> idle_rss_ours=<MiB> idle_rss_clientgo=<MiB> idle_rss_floor=<MiB> idle_rss_cr_cache=<MiB> idle_rss_cr_syncer=<MiB> agent_idle_rss=<MiB> agent_rss=<MiB> ryow_dups=<n> ryow_reconcile_time_vs_off=<x> ryow_wait_p99_vs_cache=<x> ryow_cache_reconcile_time_vs_off=<x> shadow_read_p99_vs_cache=<x> shadow_reconcile_time_vs_cache=<x> shadow_differences=<n> meta_time_vs_best_peer=<x> meta_rss_vs_best_peer=<x> meta_server_cpu_vs_best_peer=<x> meta_bytes_vs_full=<x> unstructured_time_vs_dynamic=<x> unstructured_rss_vs_dynamic=<x> idle_rss_dynamic=<MiB> lag_probe_server_cores_100=<cores> lag_probe_requests_per_s_100=<n> bounded_read_p99_s=<s> warm_time_vs_floor=<x> event_cpu_slope_vs_floor_decode=<x> proj_event_cpu_slope_vs_floor_decode=<x> idle_cpu_vs_floor=<x> idle_cpu_vs_clientgo=<x> idle_cpu_vs_cr_cache=<x> agent_idle_cpu_vs_floor=<x> agent_idle_cpu_vs_clientgo=<x> named_bytes_vs_full=<x> named_rss_vs_idle_plus_decoded=<x> named_p99_vs_full=<x> named_list_bytes_vs_watchlist=<x> named_1000_bytes_vs_full=<x> named_1000_p99_vs_full=<x> named_server_event_cpu_20_vs_type=<x> named_server_event_cpu_1000_vs_type=<x> named_server_goroutines_1000=<n> named_metagets_bytes_vs_names=<x> named_metagets_1000_bytes_vs_names=<x>
//
// slow_lag_p50_vs_fast is ours-slow-handler's other handler's lag p50 over
// ours'; slow_restarts the largest number of watch restarts of
// ours-slow-handler in any round's steady state; slow_rss_vs_clientgo its
// peak RSS after the steady state over client-go-slow-handler's.
// server_rss_vs_clientgo_list is ours' kube-apiserver peak over idle over
// client-go-list's; server_cpu_vs_clientgo_watchlist ours' kube-apiserver
// CPU over client-go-watchlist's; crd_time_vs_clientgo and
// crd_rss_vs_clientgo ours' time to synced and peak RSS at sync over
// client-go's typed Widget informer's; warm_time_vs_cold and
// warm_bytes_vs_cold ours-warm's time to synced and bytes read over ours
// cold, warm_time_vs_floor its time over floor-warm's; cpu_per_event_vs_floor
// ours' steady-state CPU seconds per event over floor-decode's (and
// cpu_per_event_vs_clientgo over client-go-watchlist's: its target is
// retired, below the floor, issue 44); event_cpu_slope_vs_floor_decode
// ours' marginal CPU per event over floor-decode's,
// proj_event_cpu_slope_vs_floor_decode ours-projected's over the
// projection part's floor-decode's; idle_cpu_vs_floor and
// idle_cpu_vs_clientgo ours' idle CPU per second over floor-decode's and
// client-go-watchlist's, idle_cpu_vs_cr_cache the crd part's ours' over
// cr-cache's, agent_idle_cpu_vs_floor and agent_idle_cpu_vs_clientgo the
// node agent's over floor-decode's and client-go-watchlist's of its pods
// (two processes that did not run at all in the window give 1). shard_* compare a shard of 4 (time, RSS) and 4
// shards together (apiserver CPU) with one unsharded syncer; cr_* the
// controller-runtime Manager fed by the syncer with the same Manager on its
// own cache; cold_server_cpu_vs_clientgo_best ours' kube-apiserver CPU in
// the server-cost table over that of client-go's cheaper mode (WatchList or
// LIST + WATCH); wave_warm_* the node-agent wave restarted warm against
// client-go's in each mode; apiserver_restart_cpu_vs_clientgo what
// kube-apiserver restarted under running agents pays for ours' resync over
// what it pays for client-go's (WatchList) relist, its own start-up taken
// off both; takeover_s the fleet part's median seconds
// from a SIGKILL to the killed replica's shards synced by the others.
// proj_time_vs_floor_read, proj_rss_vs_clientgo_strip and
// proj_cpu_per_event_vs_floor_decode compare ours-projected's time to
// synced, peak RSS and steady CPU per event on the projection part's pods
// with floor-read's, client-go-watchlist-strip's and floor-decode's;
// proj_crd_time_vs_full and proj_crd_rss_vs_full its widgets' time and
// peak RSS with the full WidgetSyncer's. idle_rss_* are idle peak RSS in
// MiB, each contender's program on an empty namespace: ours, client-go-watchlist
// and keep-all (the floors' program) of the contenders part, cr-cache and
// cr-syncer of the CRD part; agent_idle_rss and agent_rss the node agent's
// peak RSS in MiB on a node of no pod and of -agent-pods.
// meta_time_vs_best_peer, meta_rss_vs_best_peer and
// meta_server_cpu_vs_best_peer compare ours-metadata's time to synced,
// peak RSS at sync and kube-apiserver's CPU in the metadata part with the
// best of client-go-metadata's and cr-metadata's in that figure (as their
// users run them, gzip on); meta_bytes_vs_full its bytes read from the
// server with the full ConfigMapSyncer's; unstructured_time_vs_dynamic and
// unstructured_rss_vs_dynamic ours-unstructured's time and peak RSS with
// client-go-dynamic's; idle_rss_dynamic the dynamic program's idle peak
// RSS in MiB. named_bytes_vs_full, named_p99_vs_full and their
// named_1000_ forms compare ours-named-20 (ours-named-1000) with the full
// syncer's bytes read and lag p99; named_rss_vs_idle_plus_decoded is
// ours-named-20's peak RSS over its idle peak over its Store.Bytes (the
// named Secrets decoded); named_list_bytes_vs_watchlist
// ours-named-list-20's bytes read over ours-named-20's;
// named_server_event_cpu_20_vs_type and named_server_event_cpu_1000_vs_type
// kube-apiserver's CPU per update of the steady state with 20 (1,000) name
// watches open over with one watch of the type; named_server_goroutines_1000
// the goroutines 1,000 name watches hold in kube-apiserver;
// named_metagets_bytes_vs_names and named_metagets_1000_bytes_vs_names the
// metadata syncer plus GETs' bytes read over the syncer over names'. A part
// (or a contender) that did not run gives nan.
package main

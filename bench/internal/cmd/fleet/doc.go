// Command fleet is a replica of the bench's fleet part (see bench/doc.go):
// a program whose work for a shard is a synced syncer of that shard of
// the ConfigMaps, its shards divided among the replicas by package fleet.
// It says "held" and "released" (child.ShardReport) on stdout, and runs
// until its stdin closes. It links the runtime, the generated package and
// package fleet.
package main

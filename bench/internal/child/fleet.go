package child

import "time"

// The fleet part's replicas (bench/internal/cmd/fleet): FleetShards shards
// through Leases of FleetLease. A replica says "held <ShardReport>" once
// the syncer of a shard it took has synced, and "released <ShardReport>"
// when it gave a shard up.
const (
	FleetShards = 8
	FleetLease  = 5 * time.Second
	MsgHeld     = "held"
	MsgReleased = "released"
)

// ShardReport is a replica's message about one shard.
type ShardReport struct {
	Shard   int `json:"shard"`
	Objects int `json:"objects"`
}

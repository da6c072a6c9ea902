package runtime

import (
	"testing"

	"k8s.io/apimachinery/pkg/sharding"
)

// TestSameShard checks that the echo of a shard selector is compared by
// what it selects: spellings of one selector are the same shard, any
// other range, field or text is not.
func TestSameShard(t *testing.T) {
	half := shardString(sharding.NewSelector(ShardRange("object.metadata.uid", 0, 2)))
	quarters := shardString(sharding.NewSelector(ShardRange("object.metadata.uid", 0, 4), ShardRange("object.metadata.uid", 1, 4)))
	same := []string{
		half,
		quarters, // [0, 1/4) || [1/4, 1/2)
		"shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')",
		`  shardRange( object . metadata . uid , "0x0000000000000000", "0x8000000000000000" )  `,
		"(shardRange(object.metadata.uid, '0x0', '0x8000000000000000'))",
		"shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x6000000000000000') || (shardRange(object.metadata.uid, '0x2000000000000000', '0x8000000000000000'))",
	}
	for _, s := range same {
		if !sameShard(half, s) || !sameShard(s, half) {
			t.Errorf("%q and %q: not the same shard", half, s)
		}
	}
	other := []string{
		"",
		shardString(sharding.NewSelector(ShardRange("object.metadata.uid", 1, 2))),
		shardString(sharding.NewSelector(ShardRange("object.metadata.namespace", 0, 2))),
		shardString(sharding.NewSelector(ShardRange("object.metadata.uid", 0, 4))),
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000001')",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || shardRange(object.metadata.uid, '0x4000000000000001', '0x8000000000000000')",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && true",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000)",
		"shardRange(object.metadata.uid, '0X0000000000000000', '0x8000000000000000')",
		"shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || shardRange(object.metadata.namespace, '0x4000000000000000', '0x8000000000000000')",
		"otherRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
		"shardRange(object.metadata.uid, 0, '0x8000000000000000')",
	}
	for _, s := range other {
		if sameShard(half, s) || sameShard(s, half) {
			t.Errorf("%q and %q: the same shard", half, s)
		}
	}
	if sameShard("", "") {
		t.Error("no selector read as a shard")
	}
}

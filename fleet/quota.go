package fleet

import (
	"hash/fnv"
	"slices"
	"strconv"
)

// quota returns how many of n shards identity is to hold when the live
// replicas are members (sorted, identity among them): floor(n/k) for each
// of the k members, and one more for the first n%k of them in order.
//
// The quota of each replica depends only on the set of live members, not
// on who holds what, so replicas that see the same members agree on every
// quota, and the quotas add up to n: a replica over its quota releases,
// one under it acquires free or expired shards, and since no one acquires
// beyond its quota the free shards are exactly what the replicas under
// quota lack. Once the members' view settles, this converges in a few
// rounds whatever order the replicas act in.
func quota(n int, members []string, identity string) int {
	k := len(members)
	if k == 0 {
		return n
	}
	i, found := slices.BinarySearch(members, identity)
	if !found {
		i = k // not a member: the smallest quota
	}
	q := n / k
	if i < n%k {
		q++
	}
	return q
}

// preference returns shards 0..n-1 in the order identity prefers them:
// by a hash of (identity, shard), highest first (rendezvous hashing). Each
// replica's order is stable and different replicas' orders differ, so
// replicas under quota at the same time mostly try different shards first,
// and a replica releases the shards it prefers least.
func preference(n int, identity string) []int {
	score := make([]uint64, n)
	order := make([]int, n)
	for i := range n {
		h := fnv.New64a()
		h.Write([]byte(identity))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(i)))
		score[i] = h.Sum64()
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case score[a] > score[b]:
			return -1
		case score[a] < score[b]:
			return 1
		}
		return a - b
	})
	return order
}

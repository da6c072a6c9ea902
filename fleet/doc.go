// Package fleet divides N shards among the live replicas of a program
// through coordination.k8s.io/v1 Leases, so that each replica runs the
// syncers and workers of its share of shards (kube-apiserver 1.36+ can
// send a list or watch stream of one hash range of object UIDs, and a
// syncer made with runtime.WithShard watches one shard).
//
//	f, err := fleet.New(restConfig, fleet.Options{
//		Name:      "widget-controller", // every replica of the program
//		Namespace: "kube-system",
//		Identity:  os.Getenv("POD_NAME"), // unique among live replicas
//		Shards:    8,
//		Metrics:   fleetMetrics.For("widget-controller"), // prometheusmetrics.NewFleet
//		Logger:    logger,
//	})
//	...
//	err = f.Run(ctx, func(ctx context.Context, shard int) error {
//		// The shard's syncer (runtime.WithShard(shard, 8)) and workers,
//		// until ctx is done; then return promptly.
//		set, err := syncerset.New(restConfig)
//		...
//		<-ctx.Done()
//		return nil
//	})
//
// # Guarantees
//
// At most one holder: a replica runs a shard's work only while it holds
// the shard's Lease <Name>-shard-<i>, renewed every RetryPeriod. If it
// cannot renew within RenewDeadline of the last renewal that succeeded, it
// cancels the work's context and waits for the work to return; only then
// does it release the Lease (or, cut off, stop renewing it). Another
// replica takes a Lease it did not see released only LeaseDuration (or the
// Lease's leaseDurationSeconds, if longer) after it first observed its
// last version, and that version was written after the holder's
// RenewDeadline started: the work has LeaseDuration-RenewDeadline to
// return. Expiry is judged by the time this replica observed a version of
// a Lease (its resourceVersion), never by comparing the holder's
// timestamps with its own clock, as client-go's leader election does, so
// clock skew between machines does not matter; a pause of the holder
// longer than LeaseDuration-RenewDeadline (a frozen VM) is what it cannot
// guard against, like leader election. A shard's Lease that does not exist
// is taken only once this replica has found it missing for LeaseDuration:
// it cannot tell a Lease never created from one deleted while its holder
// works on the shard. So a new fleet (a Name never used) takes its first
// shards LeaseDuration after its replicas start.
//
// Every shard held: a replica that dies (SIGKILL: no release, no renewal)
// leaves its Leases to expire; the others take them within LeaseDuration
// (+ RetryPeriod) of its last renewal. A replica that stops (Run's context
// ends) releases its membership, stops each shard's work, waits for it and
// releases the shard's Lease: the others take each shard in their first
// round after its release, within 1.25 RetryPeriods of it (rounds are a
// RetryPeriod apart, plus jitter), and no Lease names the stopped replica
// once Run has returned, not even one whose take was in flight as Run's
// context ended (see Lost answers). Only a release the server does not
// answer within RenewDeadline leaves its Lease to expire, LeaseDuration
// after its last renewal.
//
// Balance: each replica renews a membership Lease <Name>-member-<Identity>
// every RetryPeriod; the live members are those whose membership another
// replica saw renewed within LeaseDuration (expired ones are deleted, and
// released ones a LeaseDuration after their release, once every replica
// has seen it; a member one of whose shards expired counts as gone until
// it renews its membership again). With K live members sorted by
// identity, the first N%K have a quota of ceil(N/K) shards, the others
// floor(N/K). A replica
// over its quota gives up the shards it prefers least (work stopped and
// waited for, then the Lease released); a replica under it takes free or
// expired shards in its own order of preference (rendezvous hashing of
// identity and shard, so that replicas under quota at once mostly try
// different shards), at most up to its quota. Quotas depend on the members
// alone, so replicas that see the same members agree, the quotas add up to
// N, and the free shards are what the replicas under quota lack: the
// fleet converges in a round or two after each change, whatever order the
// replicas act in. Rounds are spread by a jitter of up to a quarter of
// RetryPeriod, and a replica's first round only joins and looks, so that
// replicas started together see each other before they take shards.
//
// # A worked example: N=8, K=3 -> 4 -> 3 -> 2
//
// a, b and c start: quotas 3, 3, 2 (a and b come first by identity). Each
// takes its quota of free shards, e.g. a=[2 3 7] b=[4 5 6] c=[0 1].
//
// d joins: from the next round every replica sees four members, quota 2
// each. a and b are one over: each stops the work of the shard it prefers
// least, waits for it, releases its Lease. d, two under, takes the two
// released shards as they come free: a=[2 3] b=[4 5] c=[0 1] d=[6 7].
// Two shards moved, the fewest possible.
//
// b dies: its Leases (shards 4 and 5) and its membership stop being
// renewed. LeaseDuration after the others last saw them renewed, shard
// 4's and 5's Leases have expired; b counts as gone, quotas become a=3 c=3
// d=2, and a and c take one expired shard each: a=[2 3 5] c=[0 1 4]
// d=[6 7].
//
// d dies: likewise, quotas a=4 c=4, and a and c take d's two shards:
// a=[2 3 5 7] c=[0 1 4 6].
//
// # Leases
//
// Every Lease of a fleet has the labels fleet.syncer-gen.io/name=<Name>
// and fleet.syncer-gen.io/role=shard|member, and its records are client-go
// leader election's (resourcelock.LeaderElectionRecord), so kubectl shows
// the holder of each shard:
//
//	kubectl -n kube-system get leases -l fleet.syncer-gen.io/name=widget-controller
//
// A round costs one LIST of the fleet's Leases and one write of the
// membership, and each held shard one write per RetryPeriod. The
// replicas' service account needs get, list, create, update and delete on
// leases.coordination.k8s.io in Namespace.
//
// # Leases deleted or edited by hand
//
// Deleted (kubectl delete leases -l fleet.syncer-gen.io/name=<Name>, all
// of them or some): each holder writes its shard's Lease again at its next
// renewal, within a RetryPeriod, as client-go's leader election writes its
// lock again, and keeps the shard; each replica writes its membership
// again at its next round. Meanwhile a replica counts a shard's Lease it
// saw, missing or not, as held until it has found it missing for
// LeaseDuration (the holder may have renewed it after the version this
// replica saw, but not after the deletion), and one it never saw likewise;
// and a membership it saw as live until the version it saw expires. So no
// shard moves, none has two holders, and no replica counts the others
// gone; a shard whose holder is gone as well is taken LeaseDuration after
// its Lease was found missing.
//
// Edited: every edit is a new version, from which the others count the
// lease afresh, and the holder's next renewal conflicts, reads the Lease
// and, if it still names the holder, writes the holder's record over the
// edit. renewTime and acquireTime are never read as times: an edit of them
// changes nothing else. leaseDurationSeconds counts only above the
// reader's LeaseDuration: shortened, a shard is still not taken before
// LeaseDuration after the edit; lengthened, a shard whose holder is gone
// waits that long. Labels removed hide the Lease from the LIST, so it
// counts as missing until the holder's next renewal writes them back.
// holderIdentity is trusted, as leader election trusts it: set to "" (a
// release) anyone may take the shard at once, and set to a live replica,
// that replica takes it at its next round (a Lease that names a replica is
// that replica's: see Lost answers); the replica it named before finds the
// change at its next renewal and stops its work, so for up to a
// RetryPeriod and that work's time to return the shard may have two
// holders. To move shards, stop the replica that holds them (it hands
// them over safely) rather than edit holders; deleting a Lease moves
// nothing.
//
// # Lost answers
//
// A write whose answer is lost (the request cancelled, timed out or cut
// off, or a 5xx: it may have landed, or may land yet) is made sure of. A
// take is sent again, with a context of its own, conditional on the same
// version: it lands, or its conflict and a read show that the first did.
// Once Run's context has ended, a release is written the same way
// instead, so that the Lease does not name this replica whatever became
// of the take, and the others take the shard at once. A take that stays
// unsure (the server answers neither the take sent again nor, after its
// conflict, the read) is settled by the next LIST, or released as Run
// ends. Any Lease that names this replica while it does
// not hold it (a take whose answer was lost, a release that failed, an
// earlier run under the same Identity) is taken first in the next round,
// as far as the quota goes, and released otherwise: while the replica
// lives, such a Lease neither expires unowned nor makes the others count
// the replica dead. A renewal whose answer was lost is sent again at the
// next RetryPeriod (a conflict, a read: still this replica's, written
// again); a release is retried until RenewDeadline.
package fleet

package fleet

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	rl "k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Labels on every Lease of a fleet.
const (
	// LabelName is the fleet's Name.
	LabelName = "fleet.syncer-gen.io/name"
	// LabelRole is "shard" or "member".
	LabelRole = "fleet.syncer-gen.io/role"
)

const (
	roleShard  = "shard"
	roleMember = "member"
)

func shardLeaseName(fleet string, shard int) string { return fleet + "-shard-" + strconv.Itoa(shard) }

func memberLeaseName(fleet, identity string) string { return fleet + "-member-" + identity }

// leaseLock reads and writes one of the fleet's Leases, each write
// conditional on the version it last read or wrote (optimistic
// concurrency), with client-go's records (resourcelock.LeaderElectionRecord
// and its conversions). It does what resourcelock.LeaseLock does, and
// tells the resourceVersion it read: LeaseLock.Get gives the record as JSON
// only, whose RenewTime has whole seconds (metav1.Time), so two renewals
// within one second (RetryPeriod under a second) look the same and the
// observed time would not move with them. Observations are kept by
// resourceVersion, which every write changes. One goroutine uses a
// leaseLock at a time.
type leaseLock struct {
	client coordinationv1client.LeaseInterface
	meta   metav1.ObjectMeta // name, namespace, labels
	lease  *coordinationv1.Lease
}

func (f *Fleet) newLock(name, role string) *leaseLock {
	return &leaseLock{client: f.leases, meta: metav1.ObjectMeta{
		Namespace: f.o.Namespace, Name: name,
		Labels: map[string]string{LabelName: f.o.Name, LabelRole: role},
	}}
}

// get reads the Lease and returns its record and resourceVersion. Found
// missing, the next write creates it.
func (l *leaseLock) get(ctx context.Context) (rl.LeaderElectionRecord, string, error) {
	lease, err := l.client.Get(ctx, l.meta.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		l.lease = nil
	}
	if err != nil {
		return rl.LeaderElectionRecord{}, "", err
	}
	l.lease = lease
	return *rl.LeaseSpecToLeaderElectionRecord(&lease.Spec), lease.ResourceVersion, nil
}

// write writes rec: it creates the Lease if it was last found missing (or
// never read), else updates the version last read or written. Either
// fails if the Lease changed since (a conflict, or AlreadyExists).
func (l *leaseLock) write(ctx context.Context, rec rl.LeaderElectionRecord) error {
	if l.lease == nil {
		return l.create(ctx, rec)
	}
	return l.update(ctx, rec)
}

// create creates the Lease with rec.
func (l *leaseLock) create(ctx context.Context, rec rl.LeaderElectionRecord) error {
	lease, err := l.client.Create(ctx, &coordinationv1.Lease{ObjectMeta: l.meta, Spec: rl.LeaderElectionRecordToLeaseSpec(&rec)}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	l.lease = lease
	return nil
}

// update writes rec over the version of the Lease last read or written:
// it fails with a conflict if anyone wrote it since.
func (l *leaseLock) update(ctx context.Context, rec rl.LeaderElectionRecord) error {
	next := l.lease.DeepCopy()
	next.Spec = rl.LeaderElectionRecordToLeaseSpec(&rec)
	if next.Labels == nil {
		next.Labels = map[string]string{}
	}
	maps.Copy(next.Labels, l.meta.Labels)
	lease, err := l.client.Update(ctx, next, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	l.lease = lease
	return nil
}

// record is the record this replica writes to take or renew a Lease.
func (f *Fleet) record(now time.Time, acquired time.Time, transitions int) rl.LeaderElectionRecord {
	return rl.LeaderElectionRecord{
		HolderIdentity:       f.o.Identity,
		LeaseDurationSeconds: int(f.o.LeaseDuration / time.Second),
		AcquireTime:          metav1.NewTime(acquired),
		RenewTime:            metav1.NewTime(now),
		LeaderTransitions:    transitions,
	}
}

// releaseRecord is what a holder writes to give a Lease up, as client-go's
// LeaderElector does: no holder, so that anyone may take it at once.
func releaseRecord(old rl.LeaderElectionRecord, now time.Time) rl.LeaderElectionRecord {
	return rl.LeaderElectionRecord{
		LeaseDurationSeconds: 1,
		AcquireTime:          metav1.NewTime(now),
		RenewTime:            metav1.NewTime(now),
		LeaderTransitions:    old.LeaderTransitions,
	}
}

// An observation is what this replica knows of one of the fleet's Leases:
// the version it saw last, and when it first saw it. Expiry is judged from
// that time, as client-go's LeaderElector judges it from observedTime: the
// record was written before this replica saw it, so its writer's own
// deadline (counted from before it sent the write) comes before this
// replica's view of the expiry, whatever the clocks of the two machines
// say. The holder's RenewTime is never compared with this replica's clock.
//
// A Lease found missing (deleted by hand) is not forgotten. A shard's is
// free only once it has been missing for as long as the lease of the last
// version seen (or LeaseDuration, if none was seen): whoever held it may
// have renewed it after the version this replica saw, but not after the
// deletion, so by then its RenewDeadline has passed and its work has
// returned. A membership found missing still counts until the version last
// seen expires: live replicas write theirs again within a RetryPeriod.
type observation struct {
	version string        // resourceVersion of the version last seen, "" if none
	since   time.Time     // when this replica first saw that version (none: first found the Lease missing)
	holder  string        // that version's holder, "" for none
	valid   time.Duration // how long that version holds from since
	missing time.Time     // when this replica first found the Lease missing since; zero while it exists
}

// see returns the observation after this replica saw l at now (nil: the
// Lease is missing). ownLease is this replica's LeaseDuration: a version
// holds for its record's leaseDurationSeconds, but never less, so that a
// lease shortened by hand does not let another take the shard before its
// holder's RenewDeadline, counted from a lease of ownLease, has passed.
func (o observation) see(l *coordinationv1.Lease, now time.Time, ownLease time.Duration) observation {
	switch {
	case l == nil && o.since.IsZero():
		return observation{since: now, valid: ownLease, missing: now}
	case l == nil:
		if o.missing.IsZero() {
			o.missing = now
		}
		return o
	case o.version == l.ResourceVersion && o.missing.IsZero():
		return o
	}
	rec := rl.LeaseSpecToLeaderElectionRecord(&l.Spec)
	return observation{version: l.ResourceVersion, since: now, holder: rec.HolderIdentity,
		valid: max(ownLease, time.Duration(rec.LeaseDurationSeconds)*time.Second)}
}

// expired reports whether the version seen has expired by now.
func (o observation) expired(now time.Time) bool { return now.After(o.since.Add(o.valid)) }

// held reports whether the version seen names a holder whose lease has not
// expired by now (missing or not).
func (o observation) held(now time.Time) bool { return o.holder != "" && !o.expired(now) }

// exists reports whether the Lease existed when last looked at.
func (o observation) exists() bool { return o.missing.IsZero() }

// free reports whether anyone may take a shard whose Lease is o: it exists
// with no holder or an expired one, or it has been missing for as long as
// a lease.
func (o observation) free(now time.Time) bool {
	if !o.exists() {
		return now.After(o.missing.Add(o.valid))
	}
	return !o.held(now)
}

// view is the fleet as one LIST of its Leases shows it.
type view struct {
	shards  []observation
	members []string               // live members, sorted, this replica among them
	stale   []coordinationv1.Lease // member Leases expired, or released a lease ago: deleted by whoever sees them
	expired map[string]struct{}    // identities holding a shard whose lease expired
}

// look builds the view from a LIST of the fleet's Leases read at now.
func (f *Fleet) look(items []coordinationv1.Lease, now time.Time) view {
	v := view{
		shards:  make([]observation, f.o.Shards),
		expired: map[string]struct{}{},
	}
	byName := map[string]*coordinationv1.Lease{}
	for i := range items {
		if l := &items[i]; l.Labels[LabelName] == f.o.Name {
			byName[l.Name] = l
		}
	}
	for s := range f.o.Shards {
		l := byName[shardLeaseName(f.o.Name, s)]
		o := f.seeShard(s, l, now)
		v.shards[s] = o
		if o.exists() && o.holder != "" && o.expired(now) {
			v.expired[o.holder] = struct{}{}
		}
	}
	for name, l := range byName {
		if l.Labels[LabelRole] == roleMember {
			f.members[name] = f.members[name].see(l, now, f.o.LeaseDuration)
		}
	}
	for name, o := range f.members {
		if byName[name] != nil {
			continue
		}
		// Missing: deleted by its replica's leave, as stale, or by hand.
		// Forgotten once it no longer counts, so that the map does not
		// grow with the replicas that came and went.
		if o = o.see(nil, now, f.o.LeaseDuration); !o.held(now) {
			delete(f.members, name)
			continue
		}
		f.members[name] = o
	}
	// A replica one of whose shards expired has stopped renewing: it is
	// dead or cut off, whatever its membership says yet. The others count
	// without it from then on, so as to take its shards at once and keep
	// them, until its membership is renewed (it was only cut off for a
	// while) or expires.
	memberVersion := map[string]string{}
	for _, o := range f.members {
		memberVersion[o.holder] = o.version
	}
	for id := range v.expired {
		if version, ok := memberVersion[id]; ok && id != f.o.Identity {
			if _, known := f.suspects[id]; !known {
				f.suspects[id] = version
			}
		}
	}
	for id, version := range f.suspects {
		if memberVersion[id] != version {
			delete(f.suspects, id) // renewed since, or gone
		}
	}
	// A membership released (its replica left) is deleted only once the
	// release has stood for a lease, so that every replica has seen it:
	// one that finds a membership missing counts it until the version it
	// saw expires.
	live := map[string]bool{f.o.Identity: true}
	for name, o := range f.members {
		id := o.holder
		switch {
		case id == f.o.Identity:
		case o.exists() && o.expired(now):
			v.stale = append(v.stale, *byName[name])
		case o.held(now):
			if _, suspect := f.suspects[id]; !suspect {
				live[id] = true
			}
		}
	}
	for id := range live {
		v.members = append(v.members, id)
	}
	slices.Sort(v.members)
	return v
}

// seeShard notes what this replica sees of shard's Lease at now (nil:
// missing) and returns the observation. Only Run's goroutine calls it.
func (f *Fleet) seeShard(shard int, l *coordinationv1.Lease, now time.Time) observation {
	f.shards[shard] = f.shards[shard].see(l, now, f.o.LeaseDuration)
	return f.shards[shard]
}

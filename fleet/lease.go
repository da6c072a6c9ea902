package fleet

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
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

// get reads the Lease and returns its record and resourceVersion.
func (l *leaseLock) get(ctx context.Context) (rl.LeaderElectionRecord, string, error) {
	lease, err := l.client.Get(ctx, l.meta.Name, metav1.GetOptions{})
	if err != nil {
		return rl.LeaderElectionRecord{}, "", err
	}
	l.lease = lease
	return *rl.LeaseSpecToLeaderElectionRecord(&lease.Spec), lease.ResourceVersion, nil
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
	if l.lease == nil {
		return errors.New("fleet: update of a Lease not read")
	}
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

// An observation is when this replica first saw a Lease's record as it is.
// Expiry is judged from it, as client-go's LeaderElector judges it from
// observedTime: the record was written before this replica saw it, so its
// writer's own deadline (counted from before it sent the write) comes
// before this replica's view of the expiry, whatever the clocks of the two
// machines say. The holder's RenewTime is never compared with this
// replica's clock.
type observation struct {
	version string // the Lease's resourceVersion
	since   time.Time
}

// observe notes that the Lease name was at version at now and returns when
// this replica first saw that version. Only Run's goroutine calls it.
func (f *Fleet) observe(name, version string, now time.Time) observation {
	o, ok := f.observed[name]
	if !ok || o.version != version {
		o = observation{version: version, since: now}
		f.observed[name] = o
	}
	return o
}

// expired reports whether the record a holder wrote, first observed at
// since, has expired by now.
func expired(r rl.LeaderElectionRecord, since, now time.Time) bool {
	return now.After(since.Add(time.Duration(r.LeaseDurationSeconds) * time.Second))
}

// shardState is a shard's Lease as this replica last saw it.
type shardState struct {
	exists bool
	rec    rl.LeaderElectionRecord
	since  time.Time // first observed as rec
}

// free reports whether anyone may take the shard: no Lease yet, no holder,
// or its holder's lease expired.
func (s shardState) free(now time.Time) bool {
	return !s.exists || s.rec.HolderIdentity == "" || expired(s.rec, s.since, now)
}

// view is the fleet as one LIST of its Leases shows it.
type view struct {
	shards  []shardState
	members []string               // live members, sorted, this replica among them
	stale   []coordinationv1.Lease // member Leases expired: deleted by whoever sees them
	expired map[string]struct{}    // identities holding a shard whose lease expired
}

// look builds the view from a LIST of the fleet's Leases read at now.
func (f *Fleet) look(items []coordinationv1.Lease, now time.Time) view {
	v := view{
		shards:  make([]shardState, f.o.Shards),
		expired: map[string]struct{}{},
	}
	type member struct {
		lease coordinationv1.Lease
		rec   rl.LeaderElectionRecord
		since time.Time
	}
	var members []member
	seen := map[string]bool{}
	shardPrefix := f.o.Name + "-shard-"
	for _, l := range items {
		if l.Labels[LabelName] != f.o.Name {
			continue
		}
		rec := *rl.LeaseSpecToLeaderElectionRecord(&l.Spec)
		seen[l.Name] = true
		o := f.observe(l.Name, l.ResourceVersion, now)
		switch l.Labels[LabelRole] {
		case roleShard:
			i, err := strconv.Atoi(strings.TrimPrefix(l.Name, shardPrefix))
			if err != nil || !strings.HasPrefix(l.Name, shardPrefix) || i < 0 || i >= f.o.Shards {
				continue // another shard count's Lease: not ours to judge
			}
			v.shards[i] = shardState{exists: true, rec: rec, since: o.since}
			if h := rec.HolderIdentity; h != "" && expired(rec, o.since, now) {
				v.expired[h] = struct{}{}
			}
		case roleMember:
			members = append(members, member{lease: l, rec: rec, since: o.since})
		}
	}
	// Forget what is gone, so that the map does not grow with the
	// replicas that came and went.
	for name := range f.observed {
		if !seen[name] {
			delete(f.observed, name)
		}
	}
	// A replica one of whose shards expired has stopped renewing: it is
	// dead or cut off, whatever its membership says yet. The others count
	// without it from then on, so as to take its shards at once and keep
	// them, until its membership is renewed (it was only cut off for a
	// while) or expires.
	memberVersion := map[string]string{}
	for _, m := range members {
		memberVersion[m.rec.HolderIdentity] = m.lease.ResourceVersion
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
	live := map[string]bool{f.o.Identity: true}
	for _, m := range members {
		id := m.rec.HolderIdentity
		switch {
		case id == f.o.Identity:
		case id == "" || expired(m.rec, m.since, now):
			v.stale = append(v.stale, m.lease)
		default:
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

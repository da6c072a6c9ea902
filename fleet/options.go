package fleet

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Options configures a Fleet. Name, Namespace, Identity and Shards are
// required; the durations default to client-go leader election's usual
// 15s, 10s and 2s.
type Options struct {
	// Name names the fleet: every replica of one program uses the same
	// Name, and its Leases are <Name>-shard-<i> and <Name>-member-<Identity>
	// in Namespace, labelled fleet.syncer-gen.io/name=<Name>. It must be a
	// valid label value and make valid Lease names.
	Name string
	// Namespace holds the fleet's Leases.
	Namespace string
	// Identity names this replica and must be unique among the live
	// replicas (a pod's name). A replica restarted under the same Identity
	// (a StatefulSet's pod) takes back at once the shards its Leases still
	// name it the holder of, as client-go's leader election does.
	Identity string
	// Shards is the number of shards, N; Work is called with shards
	// 0..N-1 (a syncer watches shard i of N). Shard i of 8 and shard i of
	// 16 cover different objects: to change N, change Name too, so that
	// replicas of the two versions do not share Leases.
	Shards int

	// LeaseDuration is how long a shard stays held after its holder's last
	// renewal, as the others observe it (whole seconds: Leases keep
	// seconds). Default 15s.
	LeaseDuration time.Duration
	// RenewDeadline is how long a holder keeps working on a shard after
	// the last renewal it sent that succeeded: past it, it stops the
	// shard's work and waits for it before anything else. It must be
	// shorter than LeaseDuration, and work must return within
	// LeaseDuration-RenewDeadline of its context being cancelled. Default 10s.
	RenewDeadline time.Duration
	// RetryPeriod is how often a replica renews its Leases and looks at
	// the fleet (with up to 25% jitter). Default 2s.
	RetryPeriod time.Duration

	// Metrics receives the fleet's counts (nil: none). See
	// prometheusmetrics.NewFleet.
	Metrics Metrics
	// Logger gets one line per shard acquired, released or lost, with the
	// shard, the identity and why (zero value: no logs).
	Logger logr.Logger
}

// Defaults of Options' durations.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// jitterFactor is the largest fraction of RetryPeriod added to the time
// between two rounds, so that replicas started together spread their
// requests.
const jitterFactor = 0.25

func (o Options) withDefaults() Options {
	if o.LeaseDuration == 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	if o.RenewDeadline == 0 {
		o.RenewDeadline = DefaultRenewDeadline
	}
	if o.RetryPeriod == 0 {
		o.RetryPeriod = DefaultRetryPeriod
	}
	if o.Metrics == nil {
		o.Metrics = noMetrics{}
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	return o
}

func (o Options) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.Name == "" {
		bad("Name is empty")
	} else if msgs := validation.IsValidLabelValue(o.Name); len(msgs) > 0 {
		bad("Name %q is not a valid label value: %v", o.Name, msgs)
	}
	if o.Namespace == "" {
		bad("Namespace is empty")
	}
	if o.Identity == "" {
		bad("Identity is empty")
	}
	if o.Shards < 1 {
		bad("Shards is %d, want at least 1", o.Shards)
	}
	if o.Name != "" && o.Identity != "" && o.Shards >= 1 {
		for _, n := range []string{memberLeaseName(o.Name, o.Identity), shardLeaseName(o.Name, o.Shards-1)} {
			if msgs := validation.IsDNS1123Subdomain(n); len(msgs) > 0 {
				bad("Lease name %q is not valid: %v", n, msgs)
			}
		}
	}
	if o.LeaseDuration < time.Second || o.LeaseDuration%time.Second != 0 {
		bad("LeaseDuration %s is not a whole number of seconds", o.LeaseDuration)
	}
	if o.RenewDeadline >= o.LeaseDuration {
		bad("RenewDeadline %s must be shorter than LeaseDuration %s", o.RenewDeadline, o.LeaseDuration)
	}
	if o.RetryPeriod <= 0 || float64(o.RenewDeadline) <= (1+jitterFactor)*float64(o.RetryPeriod) {
		bad("RenewDeadline %s must be longer than %g RetryPeriods (%s)", o.RenewDeadline, 1+jitterFactor, o.RetryPeriod)
	}
	if len(errs) > 0 {
		return fmt.Errorf("fleet: %w", errors.Join(errs...))
	}
	return nil
}

// Metrics receives a fleet's counts. prometheusmetrics.NewFleet implements
// it with Prometheus collectors; the fleet package does not import
// Prometheus. Calls come from several goroutines.
type Metrics interface {
	// ShardsHeld is the number of shards this replica works on now,
	// called when it changes.
	ShardsHeld(n int)
	// Members is the number of live replicas this replica sees, itself
	// included, called after each look at the fleet.
	Members(n int)
	// Handover counts a shard acquired by this replica, released by it
	// (counted once its work has returned and its Lease was given up), or
	// lost (not renewed within RenewDeadline, or found taken; counted at
	// once, as its work is told to stop).
	Handover(kind Handover)
	// TookOver observes, for a shard this replica acquired from another,
	// the time from the previous holder's last renewal (or its release),
	// as this replica observed it, to this replica's acquisition.
	TookOver(from Takeover, after time.Duration)
}

// Handover is what happened to a shard, as a label value.
type Handover string

// Handovers.
const (
	Acquired Handover = "acquired"
	Released Handover = "released"
	Lost     Handover = "lost"
)

// Takeover is how the previous holder left a shard this replica took.
type Takeover string

// Takeovers.
const (
	// FromRelease: the previous holder released the shard (it was over its
	// quota, or stopping).
	FromRelease Takeover = "released"
	// FromExpiry: the previous holder stopped renewing (it died, or lost
	// the server) and its lease expired.
	FromExpiry Takeover = "expired"
)

type noMetrics struct{}

func (noMetrics) ShardsHeld(int)                   {}
func (noMetrics) Members(int)                      {}
func (noMetrics) Handover(Handover)                {}
func (noMetrics) TookOver(Takeover, time.Duration) {}

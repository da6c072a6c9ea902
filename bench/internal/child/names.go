package child

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// The contenders' names, which the parent asks a program for (-contender)
// and the program runs; see bench/contenders.go and the parts' files for
// what each is.
const (
	FloorRead         = "floor-read"
	FloorDecode       = "floor-decode"
	KeepAll           = "keep-all"
	FloorWarm         = "floor-warm"
	FloorWarmFile     = "floor-warm-file"
	ClientGoWatch     = "client-go-watchlist"
	ClientGoList      = "client-go-list"
	ClientGoSlow      = "client-go-slow-handler"
	ClientGoStrip     = "client-go-watchlist-strip"
	ClientGoDynamic   = "client-go-dynamic"
	ClientGoMetadata  = "client-go-metadata"
	Ours              = "ours"
	OursStrip         = "ours-strip"
	OursSlow          = "ours-slow-handler"
	OursWarm          = "ours-warm"
	OursWarmNewServer = "ours-warm-new-apiserver"
	OursCompressed    = "ours-compressed"
	OursList          = "ours-list"
	OursWatchList     = "ours-watchlist"
	OursProjected     = "ours-projected"
	OursMetadata      = "ours-metadata"
	OursUnstructured  = "ours-unstructured"
	CRCache           = "cr-cache"
	CRSyncer          = "cr-syncer"
	CRMetadata        = "cr-metadata"
	// The named part's: Env.Names by name (see bench/named.go). A parent's
	// contender name may add "-<n>" (its number of names) to these.
	OursNamed        = "ours-named"
	OursNamedList    = "ours-named-list"
	CRCacheNamed     = "cr-cache-named"
	OursMetadataGets = "ours-metadata-gets"

	// Ours with one mechanism a program turns on, at MechanismPeriod: idle
	// only (issue 44).
	OursResync   = "ours-resync"
	OursDrift    = "ours-drift-check"
	OursSnapshot = "ours-snapshot"
)

// MechanismPeriod is the period of the mechanism of OursResync, OursDrift
// and OursSnapshot: theirs by default are minutes or hours, this one puts
// a few periods in an idle window.
const MechanismPeriod = 5 * time.Second

// ObjectName names the i-th object the parent creates.
func ObjectName(i int) string { return fmt.Sprintf("obj-%06d", i) }

// NamedAs returns the named part's contender a program runs for name:
// name without its "-<number of names>".
func NamedAs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	for _, r := range name[i+1:] {
		if r < '0' || r > '9' {
			return name
		}
	}
	return name[:i]
}

// NoGzip ends the name of a client-go contender run with compression off
// (rest.Config.DisableCompression: its transport does not ask for gzip),
// as ours asks by default. A program runs the contender its name names
// without the suffix (RunAs).
const NoGzip = "-nogzip"

// RunAs returns the contender a program runs for name, turning compression
// off on cfg for a name that ends in NoGzip.
func RunAs(name string, cfg *rest.Config) string {
	base, off := strings.CutSuffix(name, NoGzip)
	if off {
		cfg.DisableCompression = true
	}
	return base
}

// The resources a program syncs (-resource): the built-in ones by their
// plural, and the projection part's pods and widgets, which ours-projected
// syncs projected.
const (
	ConfigMaps  = "configmaps"
	Secrets     = "secrets"
	Pods        = "pods"
	Widgets     = "widgets"
	ProjPods    = "proj-pods"
	ProjWidgets = "proj-widgets"
)

// Plural returns the resource's plural in the API.
func Plural(resource string) (string, error) {
	switch resource {
	case ConfigMaps, Secrets, Pods, Widgets:
		return resource, nil
	case ProjPods:
		return Pods, nil
	case ProjWidgets:
		return Widgets, nil
	}
	return "", fmt.Errorf("unknown resource %q", resource)
}

// WrittenAtAnnotation carries the unix nanoseconds at which the parent wrote
// an update, so that a child can measure the lag to its handler (in the
// labels of the projection part's pods). Objects are created with it set
// to zero, padded to the same width (FormatNanos), so that the objects
// keep their size when updated.
const WrittenAtAnnotation = "bench.syncer-gen.io/written-at"

// FormatNanos writes unix nanoseconds with a fixed width, so that an
// object's size does not change when the annotation does.
func FormatNanos(ns int64) string { return fmt.Sprintf("%019d", ns) }

// SlowHandlerName names our slow handler in the runtime's metrics.
const SlowHandlerName = "slow"

package runtime

import (
	"fmt"
	"slices"
	"strings"
)

// OptionsKey describes what opts set, as a string that is equal for two
// lists of options that make the same Syncer: the namespaces, the
// selectors, paging, timeouts, backoff and mode, the names of the indexes,
// the number of transforms, the snapshot file, the names (WithNames, as
// first given), and the resync, drift check and lag probe periods. Functions cannot be compared, so two lists
// that name the same index are taken to mean the same index function, and
// the logger, metrics and HTTP client are left out. A set of syncers
// (package syncerset) keys its members by resource and OptionsKey.
func OptionsKey(opts ...Option) string {
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	indexes := make([]string, 0, len(c.indexes))
	for name := range c.indexes {
		indexes = append(indexes, name)
	}
	slices.Sort(indexes)
	namespaces := "-" // no WithNamespaces
	if c.namespacesSet {
		nss := slices.Clone(c.namespaces)
		slices.Sort(nss)
		namespaces = strings.Join(slices.Compact(nss), ",")
	}
	names := "-" // no WithNames
	if c.namesSet {
		keys := make([]string, len(c.names))
		for i, k := range c.names {
			keys[i] = k.String()
		}
		slices.Sort(keys)
		names = strings.Join(slices.Compact(keys), ",")
	}
	return fmt.Sprintf("ns=%q namespaces=%q names=%q labels=%q fields=%q page=%d bookmark=%s initial=%s watch=%s probe=%s backoff=%s..%s watchlist=%d compression=%t indexes=%s transforms=%d snapshot=%q every=%s shard=%q resync=%s drift=%s lag=%s",
		c.namespace, namespaces, names, c.labelSelector, c.fieldSelector, c.pageSize, c.bookmarkTimeout, c.initialTimeout,
		c.watchTimeout, c.probeInterval, c.minBackoff, c.maxBackoff, c.watchList, c.compression, strings.Join(indexes, ","), len(c.transforms),
		c.snapshotPath, c.snapshotEvery, shardString(c.shard), c.resyncPeriod, c.driftEvery, c.lagProbe)
}

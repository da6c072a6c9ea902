// Package runtime is the small generic library that syncer-gen's generated
// code stands on. It keeps a typed local copy of one Kubernetes resource in
// sync with an API server and tells handlers what changed.
//
// A Syncer streams the initial state with the WatchList protocol
// (sendInitialEvents=true, ended by the k8s.io/initial-events-end bookmark).
// When a server refuses that request (422 Invalid: the WatchList gate is off,
// or the server is older than 1.27), or accepts it but never sends the end
// bookmark (aggregated API servers, proxies that strip query parameters), it
// falls back to a paginated LIST followed by a WATCH, delivering each object
// once. Which mode works is remembered per server and resource and re-probed
// after an interval. A Syncer with a field selector lists first, and every
// request asks for an uncompressed response: both cost the server least
// (see WithFieldSelector, WithCompression).
//
// After the initial sync the Syncer keeps a plain watch open from the last
// resourceVersion; bookmarks advance it; reconnects never re-stream the
// initial state. A 410 Gone starts a full resync in which objects deleted
// while away are reported to OnDelete. This uses resync epochs: each stored
// object carries the epoch in which it was last seen, and when the resync
// ends every object of an older epoch is deleted, so no second copy of the
// state is ever held.
//
// Each handler has a queue and a goroutine of its own, so that the
// goroutine reading the stream never runs user code: a slow handler delays
// only itself, and its queue holds at most one entry per object (pending
// events of an object are folded into its latest state). Per object, calls
// come in resourceVersion order. A deletion found at a resync is told
// apart from an observed one (DeletionInferred), and an object of a
// resync's list from one created while watching (InitialAdder). A resync
// period re-delivers the store to handlers (WithResyncPeriod); a drift
// check compares the store with the server and repairs what a lost event
// left wrong (WithDriftCheck).
//
// The generated code of syncer-gen binds a Syncer to one type:
//
//	s, err := runtime.New[*corev1.ConfigMap](cfg, runtime.Resource{
//		Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true,
//		NewList: func() kruntime.Object { return &corev1.ConfigMapList{} },
//	}, runtime.WithNamespace("default"), runtime.WithStripManagedFields())
//	s.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{
//		AddFunc: func(cm *corev1.ConfigMap) { fmt.Println("added", cm.Name) },
//	})
//	go s.Run(ctx)
//	_ = s.WaitForSync(ctx)
package runtime

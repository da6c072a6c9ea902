// Package queue feeds a syncer's events into client-go's typed work queue
// (k8s.io/client-go/util/workqueue), so that a reconcile loop takes keys
// from the queue, reads the object from the syncer's store by key, and
// retries with the queue's rate limiter:
//
//	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[runtime.Key]())
//	widgets.AddHandler(queue.Enqueue(q, queue.ObjectKey[*v1alpha1.Widget]), runtime.WithHandlerName("queue"))
//	// a Part owned by a Widget wakes the Widget up:
//	parts.AddHandler(queue.Enqueue(q, queue.OwnerKey[*v1alpha1.Part]("Widget")))
//	for {
//		k, shutdown := q.Get()
//		...
//		w, ok := widgets.Store().Get(k.Namespace, k.Name) // gone if !ok
//	}
//
// Every add, update and delete enqueues; so does every object at a resync,
// since a reconcile loop must look again at whatever may have changed
// while the syncer was away. The queue folds keys that are already waiting,
// so a burst costs one reconcile per object.
//
// After a restart every stored object is enqueued; with a Priority queue
// (NewPriority, client-go's queue with a low level), Enqueue puts the
// objects of the initial list and a resync period's updates at the low
// level, as controller-runtime's priority queue does, so that a live change
// is reconciled before that backlog:
//
//	q := queue.NewPriority(workqueue.DefaultTypedControllerRateLimiter[runtime.Key]())
package queue

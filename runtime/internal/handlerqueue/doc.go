// Package handlerqueue holds the calls one event handler has yet to
// receive, folded so that a handler that is behind, or blocked, costs
// memory in proportion to the objects it is behind on, never to the
// events.
//
// What it promises:
//
//   - Pushing never blocks and never waits for the handler.
//   - Per object, one pending Call that keeps its place in the queue: Old
//     is the state the handler last received, Cur the latest one. An object
//     added and deleted before the handler got to it costs nothing.
//   - An object deleted and made again under its name (a new UID, or a
//     create after a pending deletion) is reported Recreated: the handler
//     is told Old is gone, whatever happened to Cur after.
//   - Barriers (ResyncStarted, Synced) keep their order with the objects: a
//     Synced comes after every object queued before it. Runs of barriers
//     with nothing between them are folded, so that a blocked handler holds
//     at most a few barriers per pending object, however many resyncs come.
//   - An inferred deletion comes after the ResyncStarted of the resync that
//     inferred it.
//   - A call is Listed (it comes from a resync's list, not a live event)
//     only while every change folded into it is: a live change of an object
//     waiting to be added makes the add live.
//   - Only the latest error waits.
//
// It knows nothing of how a sync works: the runtime package decides what
// to push and what each Call means for a handler.
package handlerqueue

// Package childload is a controller that makes one child per parent when
// it lists none, the workload on which read-your-own-writes is proved
// (ctrlsyncer's tests) and measured (the bench's consistency part).
//
// Parents are Widgets, made by Churn and then updated over and over by it
// (another client); a parent's child is a ConfigMap labelled with the
// parent's name (Label), controlled by it, holding its spec.size. A
// reconcile reads its parent, lists its children and makes one when it
// finds none, or brings the first one's size up to date. Reading a store
// that has not seen its own last write, it makes a second child: Children
// counts them.
package childload

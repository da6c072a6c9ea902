// Package oursrun runs one of our syncers as a bench contender: the ours
// program's generated syncers and the dynamic program's metadata and
// unstructured syncers (package dynamicsyncer) sync, count and report the
// same way. It links the runtime and nothing of client-go's informers or
// controller-runtime.
package oursrun

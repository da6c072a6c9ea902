// Package projectiontest proves the decoders syncer-gen generates for a
// projected type, from the test file it generates beside them:
//
//	func TestNodePodDecoders(t *testing.T) {
//		projectiontest.Protobuf(t, NodePodFrom, new(corev1.PodList), new(NodePodList))
//		projectiontest.JSON(t, NodePodFrom, new(corev1.PodList), new(NodePodList))
//	}
//
// On random objects of the upstream type, filled as apimachinery's
// round-trip tests fill API objects (sigs.k8s.io/randfill with the
// metav1 fuzzer functions), and on variants of their encodings (fields
// reordered, repeated, split, unknown ones added, JSON keys escaped), the
// projected decoder must give exactly what the full decoder gives,
// projected with From: the same value, or the same error. The same holds
// of the list types, item by item, "items" given twice included.
// For a projection of metadata only, PartialObjectMetadata checks that the
// decoders read an object's PartialObjectMetadata, which its syncer asks
// the server for, as they read the object. FuzzProtobuf, FuzzJSON and
// FuzzJSONList check it on arbitrary bytes,
// where the projected decoder may also succeed where the full one fails in
// a part the projection does not read (see Agree).
package projectiontest

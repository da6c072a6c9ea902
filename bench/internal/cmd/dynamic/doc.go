// Command dynamic is the bench's contenders of package dynamicsyncer (see
// bench/doc.go): ours-metadata, a metadata syncer (dynamicsyncer.NewMetadata,
// *metav1.PartialObjectMetadata), and ours-unstructured, an unstructured
// syncer (dynamicsyncer.NewUnstructured, *unstructured.Unstructured), of a
// resource the program names at run time, with default options; and the
// named part's ours-metadata-gets, a metadata syncer of Secrets plus a GET
// of each named Secret whole (a REST client of core/v1 alone). It links
// the runtime and dynamicsyncer, as a program choosing its resources at run
// time does, and none of the generated packages, client-go's informers or
// controller-runtime. The parent runs it as bench/internal/child says.
package main

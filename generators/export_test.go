package generators

// The fixtures of this package's tests, for TestAcceptedMarkersCompile
// (package generators_test), which builds what they accept.
var (
	KeepAPI    = keepAPI
	KeepAlias  = keepAlias
	ClashFiles = clashFiles
)

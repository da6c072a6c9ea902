// Package generators reads Go packages and turns their syncer-gen markers
// into a Model: packages -> markers -> model. It loads packages with
// golang.org/x/tools/go/packages, parsing only the files that can hold
// markers; parses +syncer-gen markers with k8s.io/gengo's codetags grammar
// and reads the +genclient and +groupName markers of k8s.io/code-generator;
// and walks the field paths of index and keep markers through the types
// with go/types, loading types only for the packages that declare them. A
// type's keep markers make its Resource a Projection: the generated type
// with only the kept fields, and what its decoders need to read them.
//
// Every problem is an *Error with a position and an ErrorType, and Build
// returns all of them at once as an ErrorList, so that a user fixes a run's
// markers in one go and tests compare positions and types, not messages:
//
//	model, err := generators.Build(generators.Config{
//		Patterns:  []string{"./api/..."},
//		OutputPkg: "example.com/shop/syncers",
//	})
//	var list generators.ErrorList
//	if errors.As(err, &list) {
//		for _, e := range list {
//			fmt.Println(e.Pos, e.Type, e.Detail)
//		}
//	}
//
// The Model is all that package templates needs to render the source.
package generators

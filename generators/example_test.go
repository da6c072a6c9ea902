package generators_test

import (
	"fmt"
	"log"

	"github.com/syncer-gen/syncer-gen/generators"
)

// Build reads the markers of the golden fixture's API packages and returns
// the model the templates render: one package per group and version.
func ExampleBuild() {
	m, err := generators.Build(generators.Config{
		Patterns:  []string{"../internal/golden/api/..."},
		OutputPkg: "example.com/syncers",
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range m.Packages {
		fmt.Printf("%s (group %q):\n", p.ImportPath, p.Group)
		for _, r := range p.Resources {
			name := r.Kind
			if pr := r.Projection; pr != nil {
				name = fmt.Sprintf("%s (a projection of %s keeping %d paths, protobuf=%v, metadataOnly=%v)", r.Name, r.Kind, len(pr.Keeps), pr.Protobuf, pr.MetadataOnly)
			}
			fmt.Printf("  %s: %s, namespaced=%v, strip=%v, %d indexes\n", name, r.Resource, r.Namespaced, r.StripManagedFields, len(r.Indexes))
		}
	}
	// Output:
	// example.com/syncers/core/v1 (group ""):
	//   ConfigMap: configmaps, namespaced=true, strip=false, 1 indexes
	//   NodePod (a projection of Pod keeping 8 paths, protobuf=true, metadataOnly=false): pods, namespaced=true, strip=false, 1 indexes
	//   PodOwners (a projection of Pod keeping 2 paths, protobuf=true, metadataOnly=true): pods, namespaced=true, strip=false, 1 indexes
	// example.com/syncers/fleet/v1 (group "fleet.golden.example.com"):
	//   Cactus: cacti, namespaced=false, strip=false, 0 indexes
	//   Crate: crates, namespaced=true, strip=false, 1 indexes
	// example.com/syncers/fleet/v1beta1 (group "fleet.golden.example.com"):
	//   Crate: crates, namespaced=true, strip=false, 0 indexes
	// example.com/syncers/things/v1 (group "things.golden.example.com"):
	//   Datum: data, namespaced=false, strip=false, 0 indexes
	//   Gadget: gadgets, namespaced=true, strip=true, 13 indexes
	//   GadgetMeta (a projection of Gadget keeping 2 paths, protobuf=false, metadataOnly=true): gadgets, namespaced=true, strip=false, 0 indexes
	//   GadgetSummary (a projection of Gadget keeping 7 paths, protobuf=false, metadataOnly=false): gadgets, namespaced=true, strip=false, 1 indexes
}

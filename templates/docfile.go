package templates

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/syncer-gen/syncer-gen/generators"
)

// docFile renders the package documentation.
func docFile(f *jen.File, p *generators.Package) {
	kinds := make([]string, len(p.Resources))
	for i, r := range p.Resources {
		kinds[i] = r.Name
	}
	group := p.Group
	if group == "" {
		group = "core"
	}
	text := fmt.Sprintf("Package %s has the syncers of API group %s, version %s: %s.\n\n"+
		"Each syncer keeps a typed local copy of one resource in sync with an API server\n"+
		"and tells handlers what changed; New<Kind>Syncer makes one from a *rest.Config,\n"+
		"New<Kind>Driver makes one without a server for unit tests. What a syncer\n"+
		"guarantees is documented in package github.com/syncer-gen/syncer-gen/runtime.",
		p.Name, group, p.Version, strings.Join(kinds, ", "))
	for _, line := range strings.Split(text, "\n") {
		f.PackageComment(line)
	}
}

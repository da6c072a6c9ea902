package generators

import (
	"fmt"
	"maps"
	"slices"
)

// generatedNames returns the exported names a resource's generated code
// declares in its package, with what declares each.
func generatedNames(r *Resource) map[string]string {
	out := map[string]string{}
	for _, n := range syncerNames(r.Name) {
		out[n] = "the syncer of " + r.Name
	}
	if p := r.Projection; p != nil {
		out[p.Name+"List"] = "the projection " + p.Name
		out[p.Name+"From"] = "the projection " + p.Name
		for _, s := range p.Structs {
			if s.Generated {
				out[s.Name] = "the projection " + p.Name + " (of " + s.Upstream.Name + ")"
			}
		}
	}
	return out
}

// syncerNames returns the exported names the syncer of objects named name
// declares: NameSyncer, NameStore, NewNameSyncer...
func syncerNames(name string) []string {
	out := []string{"New" + name + "Syncer", "New" + name + "Driver"}
	for _, suffix := range []string{"Syncer", "Store", "Handler", "HandlerFuncs", "Driver", "Resource", "SyncerIn"} {
		out = append(out, name+suffix)
	}
	return out
}

// checkNames reports two resources of p whose generated code would
// declare the same name, such as a projection named PodSyncer, or a
// projection's struct named like another resource's syncer.
func (b *builder) checkNames(p *Package) {
	seen := map[string]string{}
	for _, r := range p.Resources {
		mine := generatedNames(r)
		var dups []string
		for _, n := range slices.Sorted(maps.Keys(mine)) {
			if _, dup := seen[n]; dup {
				dups = append(dups, n)
			}
		}
		if len(dups) > 0 {
			pos := r.Pos
			if r.Projection != nil {
				pos = r.Projection.Pos
			}
			more := ""
			if len(dups) > 1 {
				more = fmt.Sprintf(" (and %d more names)", len(dups)-1)
			}
			b.fail(errorf(pos, ErrorTypeDuplicate, byMarker, "%s would declare %s in %s%s, as %s does; rename one of them",
				mine[dups[0]], dups[0], p.Dir, more, seen[dups[0]]))
		}
		for n, what := range mine {
			seen[n] = what
		}
	}
}

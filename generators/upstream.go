package generators

import (
	"go/token"
	"slices"
	"strings"
)

// statement is one marker's say on a property of a resource (its
// resource name, its scope): the value, where it is and which marker it is.
type statement struct {
	value  string
	pos    token.Position
	marker string
}

// upstreamTags is what the markers of k8s.io/code-generator and
// kubebuilder (controller-gen) on a type say about it as a resource.
type upstreamTags struct {
	genclient     bool
	nonNamespaced *statement // +genclient:nonNamespaced, value "Cluster"
	noVerbs       bool
	onlyVerbs     []string
	skipVerbs     []string
	// resourceName is +resourceName=<plural>, as client-gen, lister-gen and informer-gen read it.
	resourceName *statement
	// root is +kubebuilder:object:root=true: a kind (or a list) of a CRD.
	root bool
	// path and scope are from +kubebuilder:resource:path=<plural>,scope=Cluster|Namespaced.
	path, scope *statement
}

const kubebuilderResource = "+kubebuilder:resource:"

// readUpstream reads the code-generator and kubebuilder markers of lines.
func readUpstream(lines []commentLine) upstreamTags {
	var g upstreamTags
	for _, l := range lines {
		name, value, _ := strings.Cut(l.text, "=")
		name = strings.TrimSpace(name)
		switch {
		case name == "+genclient":
			g.genclient = value != "false"
		case name == "+genclient:nonNamespaced":
			g.nonNamespaced = &statement{value: "Cluster", pos: l.pos, marker: name}
		case name == "+genclient:noVerbs":
			g.noVerbs = true
		case name == "+genclient:readonly":
			g.onlyVerbs = []string{"get", "list", "watch"}
		case name == "+genclient:onlyVerbs":
			g.onlyVerbs = splitList(value)
		case name == "+genclient:skipVerbs":
			g.skipVerbs = splitList(value)
		case name == "+resourceName":
			g.resourceName = &statement{value: strings.TrimSpace(value), pos: at(l.pos, len(name)+1), marker: name}
		case name == "+kubebuilder:object:root":
			g.root = value == "true"
		case strings.HasPrefix(l.text, kubebuilderResource):
			for k, v := range kubebuilderArgs(l) {
				s := &statement{value: v.value, pos: v.pos, marker: kubebuilderResource + k}
				switch k {
				case "path":
					g.path = s
				case "scope":
					g.scope = s
				}
			}
		}
	}
	return g
}

// kubebuilderArgs splits the arguments of a +kubebuilder:resource: marker,
// "path=clusters,shortName={cl,cls},scope=Cluster", into key -> value and
// the value's position. Commas inside {} or quotes do not split.
func kubebuilderArgs(l commentLine) map[string]statement {
	out := map[string]statement{}
	rest := l.text[len(kubebuilderResource):]
	start, depth := 0, 0
	var quote byte
	for i := 0; i <= len(rest); i++ {
		if i < len(rest) {
			c := rest[i]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
				continue
			case c == '"' || c == '`':
				quote = c
				continue
			case c == '{':
				depth++
				continue
			case c == '}':
				depth--
				continue
			case c != ',' || depth > 0:
				continue
			}
		}
		k, v, _ := strings.Cut(rest[start:i], "=")
		if k = strings.TrimSpace(k); k != "" {
			out[k] = statement{value: strings.Trim(strings.TrimSpace(v), `"`), pos: at(l.pos, len(kubebuilderResource)+start+len(k)+1)}
		}
		start = i + 1
	}
	return out
}

// canListWatch tells whether client-gen gives the type list and watch verbs.
func (g upstreamTags) canListWatch() bool {
	if g.noVerbs {
		return false
	}
	has := func(verb string) bool {
		if g.onlyVerbs != nil {
			return slices.Contains(g.onlyVerbs, verb)
		}
		return !slices.Contains(g.skipVerbs, verb)
	}
	return has("list") && has("watch")
}

// packageValue returns the value of the package marker +<name>=<value> in
// lines, such as +groupName or +groupGoName.
func packageValue(lines []commentLine, name string) (value string, pos token.Position, ok bool) {
	for _, l := range lines {
		if v, found := strings.CutPrefix(l.text, "+"+name+"="); found {
			return strings.TrimSpace(v), l.pos, true
		}
	}
	return "", token.Position{}, false
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

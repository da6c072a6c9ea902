package generators

import "strings"

// The scopes a resource can have, as kubebuilder spells them.
const (
	scopeCluster    = "Cluster"
	scopeNamespaced = "Namespaced"
)

// agree returns the value the statements make, nil when there are none.
// Statements that disagree are a Conflict error at each one after the
// first: the server serves one resource in one scope, so one of the
// markers is wrong, and syncer-gen does not guess which.
func agree(what string, stmts []*statement) (*statement, ErrorList) {
	var first *statement
	var errs ErrorList
	for _, s := range stmts {
		switch {
		case s == nil:
		case first == nil:
			first = s
		case s.value != first.value:
			errs = append(errs, errorf(s.pos, ErrorTypeConflict, s.marker,
				"%s %q disagrees with %s=%s at %s; the markers must state the same %s", what, s.value, first.marker, first.value, first.pos, what))
		}
	}
	return first, errs
}

// scopeOf returns whether the resource is namespaced, from the markers
// that state its scope: +genclient:nonNamespaced,
// +kubebuilder:resource:scope and +syncer-gen:scope. None of them means
// namespaced, as for client-gen and controller-gen.
func scopeOf(up upstreamTags, ms markers) (bool, ErrorList) {
	var errs ErrorList
	stmts := []*statement{up.nonNamespaced}
	for _, s := range []*statement{up.scope, ms.scopeStatement()} {
		if s != nil && s.value != scopeCluster && s.value != scopeNamespaced {
			errs = append(errs, errorf(s.pos, ErrorTypeInvalid, s.marker, "scope %q is neither %s nor %s", s.value, scopeCluster, scopeNamespaced))
			continue
		}
		stmts = append(stmts, s)
	}
	s, conflicts := agree("scope", stmts)
	errs = append(errs, conflicts...)
	return s == nil || s.value == scopeNamespaced, errs
}

// resourceNameOf returns the resource name in URLs from the markers that
// state it, +resourceName (code-generator), +kubebuilder:resource:path and
// +syncer-gen:plural; without them, the lowercase plural of the kind, as
// client-gen makes it.
func resourceNameOf(kind string, up upstreamTags, ms markers) (string, ErrorList) {
	var errs ErrorList
	var stmts []*statement
	for _, s := range []*statement{up.resourceName, up.path, ms.pluralStatement()} {
		if s != nil && !resourcePattern.MatchString(s.value) {
			errs = append(errs, errorf(s.pos, ErrorTypeInvalid, s.marker,
				"%q is not a resource name; expected lowercase letters and digits, e.g. endpoints", s.value))
			continue
		}
		stmts = append(stmts, s)
	}
	s, conflicts := agree("resource name", stmts)
	errs = append(errs, conflicts...)
	if s != nil {
		return s.value, errs
	}
	return defaultResourceName(kind), errs
}

// scopeStatement and pluralStatement turn the +syncer-gen markers that
// state a scope or a resource name into statements.
func (ms markers) scopeStatement() *statement  { return ms.statement(ms.scope) }
func (ms markers) pluralStatement() *statement { return ms.statement(ms.plural) }

func (markers) statement(m *marker) *statement {
	if m == nil {
		return nil
	}
	return &statement{value: m.value, pos: m.valuePos, marker: m.name()}
}

// groupDir returns the folder of an API group under the output folder, as
// k8s.io/code-generator names a group in Go: the +groupGoName in lower
// case if the package has one, else the group's first label ("gateway"
// for gateway.networking.k8s.io), "core" for the core group, keeping only
// letters and digits. A first label that Go treats specially as a folder
// (internal, vendor, testdata) takes the next label too: internal.apiserver.k8s.io
// is "internalapiserver".
func groupDir(group, goName string) string {
	if goName != "" {
		return keepAlnum(strings.ToLower(goName))
	}
	if group == "" {
		return "core"
	}
	labels := strings.Split(group, ".")
	dir := keepAlnum(labels[0])
	for i := 1; i < len(labels) && (dir == "internal" || dir == "vendor" || dir == "testdata"); i++ {
		dir += keepAlnum(labels[i])
	}
	return dir
}

func keepAlnum(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.ToLower(s))
}

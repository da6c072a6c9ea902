package generators

import (
	"fmt"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/gengo/v2/codetags"
)

// The marker family syncer-gen reads, and the keys it knows.
const (
	markerName = "syncer-gen"

	keyIndex       = "index"
	keyKeep        = "keep"
	keyPlural      = "plural"
	keyStripFields = "stripManagedFields"
	keyScope       = "scope"
)

// where a marker may appear.
type placement int

const (
	onType placement = 1 << iota
	onPackage
)

// keySpec says what a +syncer-gen key takes.
type keySpec struct {
	where    placement
	value    valueKind
	takesArg bool // one optional positional argument
	expected string
}

type valueKind int

const (
	boolValue     valueKind = iota // none, "true" or "false"
	requiredValue                  // any non-empty text
)

var keys = map[string]keySpec{
	"":             {where: onType | onPackage, value: boolValue, expected: "+syncer-gen, +syncer-gen=true or +syncer-gen=false"},
	keyStripFields: {where: onType | onPackage, value: boolValue, expected: "+syncer-gen:stripManagedFields[=true|false]"},
	keyPlural:      {where: onType, value: requiredValue, expected: "+syncer-gen:plural=<lowercase plural resource name>, e.g. plural=endpoints"},
	keyScope:       {where: onType, value: requiredValue, expected: "+syncer-gen:scope=Cluster or +syncer-gen:scope=Namespaced"},
	keyIndex:       {where: onType, value: requiredValue, takesArg: true, expected: "+syncer-gen:index[(<name>)]=<field path>, e.g. index(nodeName)=.spec.nodeName or index(app)=.metadata.labels[app]"},
	keyKeep:        {where: onType, value: requiredValue, expected: "+syncer-gen:keep=<field path>, one per line, e.g. keep=.spec.nodeName or keep=.spec.containers[*].image"},
}

// knownKeys lists the keys for error messages.
func knownKeys() string {
	var ks []string
	for k := range keys {
		if k != "" {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// marker is one parsed +syncer-gen line.
type marker struct {
	key      string // "" for +syncer-gen itself
	arg      string // the positional argument, if any
	argPos   token.Position
	value    string
	valuePos token.Position
	pos      token.Position // of the "+"
}

// name returns the marker as written, without its arguments and value.
func (m marker) name() string {
	if m.key == "" {
		return "+" + markerName
	}
	return "+" + markerName + ":" + m.key
}

// boolValue returns the marker's value as a bool: no value means true.
func (m marker) boolValue() bool { return m.value != "false" }

// parseMarker parses line when it is a +syncer-gen marker. ok is false for
// any other line. A line that starts like one but is malformed, or names an
// unknown key, is an error.
func parseMarker(line commentLine) (m marker, ok bool, err *Error) {
	text := line.text
	if !strings.HasPrefix(text, "+"+markerName) {
		if name, near := nearMiss(text); near {
			return marker{}, true, errorf(line.pos, ErrorTypeUnknownKey, name,
				"unknown marker; did you mean +%s? (a misspelt prefix is never ignored: its options would be lost)", markerName)
		}
		return marker{}, false, nil
	}
	rest := text[1+len(markerName):]
	if rest != "" && !strings.ContainsAny(rest[:1], ":=( \t") {
		// +syncer-genx, +syncer-gen-index: a misspelt marker, not someone else's.
		end := strings.IndexAny(text, "=( \t")
		if end < 0 {
			end = len(text)
		}
		return marker{}, true, errorf(line.pos, ErrorTypeUnknownKey, text[:end],
			"unknown marker; expected +%s or +%s:<key> with key one of: %s", markerName, markerName, knownKeys())
	}
	m.pos = line.pos
	tag, perr := codetags.Parse(text[1:], codetags.RawValues(true))
	if perr != nil {
		return marker{}, true, syntaxError(line, perr)
	}
	if tag.Name != markerName {
		key, found := strings.CutPrefix(tag.Name, markerName+":")
		if !found || key == "" {
			return marker{}, true, errorf(line.pos, ErrorTypeUnknownKey, "+"+tag.Name,
				"unknown marker; expected +%s or +%s:<key> with key one of: %s", markerName, markerName, knownKeys())
		}
		m.key = key
	}
	spec, known := keys[m.key]
	if !known {
		expected := "expected one of: " + knownKeys()
		if near := closest(m.key, strings.Split(knownKeys(), ", ")); near != "" {
			expected = fmt.Sprintf("did you mean %q?", near)
		}
		return marker{}, true, errorf(line.pos, ErrorTypeUnknownKey, m.name(), "unknown key %q; %s", m.key, expected)
	}
	if len(tag.Args) > 0 {
		a, positional := tag.PositionalArg()
		if !spec.takesArg || !positional || len(tag.Args) > 1 {
			return marker{}, true, errorf(at(line.pos, 1+len(tag.Name)), ErrorTypeInvalid, m.name(),
				"unexpected arguments; expected %s", spec.expected)
		}
		m.arg = a.Value
		m.argPos = at(line.pos, 1+len(tag.Name)+1)
	}
	if tag.ValueType == codetags.ValueTypeTag {
		return marker{}, true, errorf(line.pos, ErrorTypeInvalid, m.name(), "unexpected tag value; expected %s", spec.expected)
	}
	hasValue := tag.ValueType != codetags.ValueTypeNone
	m.value = tag.Value
	m.valuePos = at(line.pos, len(text)-len(tag.Value))
	switch spec.value {
	case boolValue:
		if hasValue && m.value != "true" && m.value != "false" {
			return marker{}, true, errorf(m.valuePos, ErrorTypeInvalid, m.name(), "value %q is not true or false; expected %s", m.value, spec.expected)
		}
	case requiredValue:
		if m.value == "" {
			pos := line.pos
			if hasValue {
				pos = m.valuePos
			}
			return marker{}, true, errorf(pos, ErrorTypeInvalid, m.name(), "missing value; expected %s", spec.expected)
		}
	}
	return m, true, nil
}

var parserPosition = regexp.MustCompile(`at position (\d+)`)

// syntaxError turns a codetags parse error into an Error placed at the
// character the parser stopped at, where it says. The parser counts from
// one past the "+", after reading the character.
func syntaxError(line commentLine, err error) *Error {
	pos := line.pos
	if m := parserPosition.FindStringSubmatch(err.Error()); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n <= len(line.text) {
			pos = at(pos, n)
		}
	}
	name := line.text
	if i := strings.IndexAny(name, "=( \t"); i > 0 {
		name = name[:i]
	}
	return errorf(pos, ErrorTypeSyntax, name, "%v", err)
}

// markers is what the +syncer-gen markers of one declaration say.
type markers struct {
	selected     *marker // +syncer-gen, +syncer-gen=true|false
	strip        *marker
	plural       *marker
	scope        *marker
	indexes      []marker
	keeps        []marker
	pos          token.Position // first marker
	foundMarkers bool
}

// readMarkers parses the +syncer-gen markers of lines placed at where.
func readMarkers(lines []commentLine, where placement, errs *ErrorList) markers {
	var ms markers
	for _, l := range lines {
		m, ok, err := parseMarker(l)
		if !ok {
			continue
		}
		if err != nil {
			*errs = append(*errs, err)
			continue
		}
		if keys[m.key].where&where == 0 {
			*errs = append(*errs, errorf(m.pos, ErrorTypeNotSupported, m.name(),
				"not allowed on a package; put it on a type (a package takes only +syncer-gen and +syncer-gen:stripManagedFields)"))
			continue
		}
		if !ms.foundMarkers {
			ms.pos, ms.foundMarkers = m.pos, true
		}
		single := map[string]**marker{"": &ms.selected, keyStripFields: &ms.strip, keyPlural: &ms.plural, keyScope: &ms.scope}
		if slot, ok := single[m.key]; ok {
			if *slot != nil {
				*errs = append(*errs, errorf(m.pos, ErrorTypeDuplicate, m.name(), "given twice; the first is at %s", (*slot).pos))
				continue
			}
			*slot = &m
			continue
		}
		if m.key == keyKeep {
			ms.keeps = append(ms.keeps, m)
			continue
		}
		ms.indexes = append(ms.indexes, m)
	}
	return ms
}

// nearMiss tells whether text starts with a marker whose name is not
// +syncer-gen but nearly: +syncergen, +syncer_gen, +Syncer-Gen, +sycner-gen.
// It returns the name as written.
func nearMiss(text string) (string, bool) {
	if !strings.HasPrefix(text, "+") {
		return "", false
	}
	end := strings.IndexAny(text, ":=( \t.")
	if end < 0 {
		end = len(text)
	}
	name := text[:end]
	norm := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name[1:]))
	const want = "syncergen"
	return name, len(norm) >= len(want)-2 && editDistance(norm, want) <= 2
}

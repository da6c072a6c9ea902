package generators

import (
	"go/token"
	"strings"
	"testing"
	"unicode/utf8"
)

func line(text string) commentLine {
	return commentLine{text: text, pos: token.Position{Filename: "types.go", Line: 7, Column: 4}}
}

func TestParseMarker(t *testing.T) {
	tests := []struct {
		text   string
		want   marker // key, arg, value
		isOurs bool
	}{
		{text: "+genclient", isOurs: false},
		{text: "+groupName=syncer.example.com", isOurs: false},
		{text: "+kubebuilder:resource:path=syncergens", isOurs: false},
		{text: "Pod is a pod.", isOurs: false},
		{text: "+syncer-gen", isOurs: true, want: marker{}},
		{text: "+syncer-gen=false", isOurs: true, want: marker{value: "false"}},
		{text: "+syncer-gen:stripManagedFields", isOurs: true, want: marker{key: keyStripFields}},
		{text: "+syncer-gen:plural=endpoints", isOurs: true, want: marker{key: keyPlural, value: "endpoints"}},
		{text: "+syncer-gen:index=.spec.nodeName", isOurs: true, want: marker{key: keyIndex, value: ".spec.nodeName"}},
		{text: "+syncer-gen:index(node)=.spec.nodeName", isOurs: true, want: marker{key: keyIndex, arg: "node", value: ".spec.nodeName"}},
		{text: `+syncer-gen:index("team")=.metadata.labels['example.com/team']`, isOurs: true,
			want: marker{key: keyIndex, arg: "team", value: ".metadata.labels['example.com/team']"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			m, ok, err := parseMarker(line(tt.text))
			if ok != tt.isOurs {
				t.Fatalf("ours = %v, want %v", ok, tt.isOurs)
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !ok {
				return
			}
			if m.key != tt.want.key || m.arg != tt.want.arg || m.value != tt.want.value {
				t.Errorf("got key=%q arg=%q value=%q, want key=%q arg=%q value=%q", m.key, m.arg, m.value, tt.want.key, tt.want.arg, tt.want.value)
			}
			if m.value != "" && tt.text[m.valuePos.Column-4:] != m.value {
				t.Errorf("value position %d points at %q, want %q", m.valuePos.Column, tt.text[m.valuePos.Column-4:], m.value)
			}
		})
	}
}

func TestParseMarkerErrors(t *testing.T) {
	// Columns are those of the comment line "// <text>", whose text starts at column 4.
	tests := []struct {
		text string
		typ  ErrorType
		col  int
	}{
		{"+syncer-gen:indx=.spec.x", ErrorTypeUnknownKey, 4},
		{"+syncer-gen-index=.spec.x", ErrorTypeUnknownKey, 4},
		{"+syncer-gen.index=.spec.x", ErrorTypeUnknownKey, 4},
		{"+syncergen:index(owner)=.spec.x", ErrorTypeUnknownKey, 4},
		{"+syncer_gen", ErrorTypeUnknownKey, 4},
		{"+sycner-gen:plural=x", ErrorTypeUnknownKey, 4},
		{"+syncer-gen:scope=", ErrorTypeInvalid, 4 + len("+syncer-gen:scope=")},
		{"+syncer-gen:=x", ErrorTypeUnknownKey, 4},
		{"+syncer-gen:index(a=.spec.x", ErrorTypeSyntax, 4 + len("+syncer-gen:index(a")},
		{"+syncer-gen:index", ErrorTypeInvalid, 4},
		{"+syncer-gen:index=", ErrorTypeInvalid, 4 + len("+syncer-gen:index=")},
		{"+syncer-gen:index(a, b)=.spec.x", ErrorTypeSyntax, 4},
		{"+syncer-gen:index(name: a)=.spec.x", ErrorTypeInvalid, 4 + len("+syncer-gen:index")},
		{"+syncer-gen:plural(x)=pods", ErrorTypeInvalid, 4 + len("+syncer-gen:plural")},
		{"+syncer-gen:stripManagedFields=yes", ErrorTypeInvalid, 4 + len("+syncer-gen:stripManagedFields=")},
		{"+syncer-gen=maybe", ErrorTypeInvalid, 4 + len("+syncer-gen=")},
		{"+syncer-gen=+other", ErrorTypeInvalid, 4 + len("+syncer-gen=")},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			_, ok, err := parseMarker(line(tt.text))
			if !ok || err == nil {
				t.Fatalf("ours=%v err=%v, want an error", ok, err)
			}
			if err.Type != tt.typ || err.Pos.Line != 7 || err.Pos.Column != tt.col {
				t.Errorf("got %s at %d:%d, want %s at 7:%d (%v)", err.Type, err.Pos.Line, err.Pos.Column, tt.typ, tt.col, err)
			}
		})
	}
}

func TestReadMarkersPlacementAndDuplicates(t *testing.T) {
	lines := []commentLine{line("+syncer-gen"), line("+syncer-gen:index=.spec.x"), line("+syncer-gen")}
	var errs ErrorList
	ms := readMarkers(lines, onPackage, &errs)
	if len(errs) != 2 || errs[0].Type != ErrorTypeNotSupported || errs[1].Type != ErrorTypeDuplicate {
		t.Fatalf("got %v, want NotSupported then Duplicate", errs)
	}
	if ms.selected == nil || len(ms.indexes) != 0 {
		t.Errorf("got %+v, want selected and no index", ms)
	}
}

func TestGenclientVerbs(t *testing.T) {
	tests := []struct {
		lines []string
		want  bool
	}{
		{[]string{"+genclient"}, true},
		{[]string{"+genclient", "+genclient:noVerbs"}, false},
		{[]string{"+genclient", "+genclient:onlyVerbs=create"}, false},
		{[]string{"+genclient", "+genclient:onlyVerbs=get,list,watch"}, true},
		{[]string{"+genclient", "+genclient:skipVerbs=watch"}, false},
		{[]string{"+genclient", "+genclient:skipVerbs=deleteCollection"}, true},
		{[]string{"+genclient", "+genclient:readonly"}, true},
	}
	for _, tt := range tests {
		var ls []commentLine
		for _, l := range tt.lines {
			ls = append(ls, line(l))
		}
		if got := readUpstream(ls).canListWatch(); got != tt.want {
			t.Errorf("%v: canListWatch = %v, want %v", tt.lines, got, tt.want)
		}
	}
}

func TestDefaultIndexName(t *testing.T) {
	for path, want := range map[string]string{
		".spec.nodeName":                             "nodeName",
		".metadata.labels[app]":                      "app",
		".metadata.labels['app.kubernetes.io/name']": "appKubernetesIoName",
		".metadata.labels[2fa]":                      "_2fa",
		"spec":                                       "",
	} {
		if got := defaultIndexName(path); got != want {
			t.Errorf("defaultIndexName(%q) = %q, want %q", path, got, want)
		}
	}
}

// FuzzParseMarker feeds any comment text to the marker parser: it must
// not panic, and an error must point inside the line.
func FuzzParseMarker(f *testing.F) {
	for _, s := range []string{
		"+syncer-gen", "+syncer-gen:index(a)=.spec.x", `+syncer-gen:index("x")=.a[b]`,
		"+syncer-gen:plural=pods", "+syncer-gen=false", "+syncer-gen:index(", "+syncer-gen:x=+y(z: 1)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) || strings.ContainsAny(text, "\n\r") {
			return
		}
		l := line(strings.TrimSpace(text))
		m, ok, err := parseMarker(l)
		if err != nil {
			if !ok {
				t.Fatalf("error for a line that is not a marker: %v", err)
			}
			if err.Pos.Column < 4 || err.Pos.Column > 4+len(l.text)+1 {
				t.Fatalf("error column %d outside the line %q", err.Pos.Column, l.text)
			}
			return
		}
		if ok && (m.key == keyIndex || m.key == keyKeep) {
			_, _, _ = parseFieldPath(m.value)
			_ = defaultIndexName(m.value)
		}
	})
}

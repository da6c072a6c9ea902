package runtime

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// eachMember finds what encoding/json finds, and reads as well-formed
// exactly the objects encoding/json reads.
func TestEachMemberMatchesEncodingJSON(t *testing.T) {
	for _, s := range jsonScannerCases {
		checkEachMember(t, []byte(s))
	}
	deep := strings.Repeat("[", maxJSONDepth-1) + strings.Repeat("]", maxJSONDepth-1)
	for _, s := range []string{`{"a":` + deep + `}`, `{"a":[` + deep + `]}`} {
		checkEachMember(t, []byte(s))
	}
}

var jsonScannerCases = []string{
	`{}`, ` {} `, "\t{\n}\r\n", `{"a":1}`, `{"a":1,}`, `{,"a":1}`, `{"a":1 "b":2}`, `{"a" 1}`, `{"a":}`, `{a:1}`,
	`{"a":-0}`, `{"a":-}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":1e+}`, `{"a":1E-07}`, `{"a":-12.5e3}`,
	`{"a":+1}`, `{"a":0x1}`, `{"a":Infinity}`, `{"a":NaN}`,
	`{"a":true,"b":false,"c":null}`, `{"a":tru}`, `{"a":nul}`, `{"a":truex}`, `{"a":True}`,
	`{"a":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, `{"a":"\'"}`,
	"{\"a\":\"\x01\"}", "{\"a\":\"\x1f\"}", "{\"a\":\"\x7f\xff\xfe\"}", "{\"\xff\":1}", `{"a":"unterminated}`, `{"a":"x\"}`,
	`{"a":[]}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`, `{"a":[1,[2,[3,{"b":[]}]]]}`, `{"a":[}`, `{"a":{]}`,
	`{"a":{"b":{"c":{}}}}`, `{"a":{"b":1,}}`, `{"a":1}}`, `{"a":1}x`, `{"a":1}{}`, `{"a":1`, `{`, `}`, ``, ` `,
	`[]`, `"s"`, `1`, `null`, `{"a":1,"a":2}`, `{"\u0061":1}`, `{"":""}`,
}

// checkEachMember checks eachMember on data against encoding/json.
func checkEachMember(t *testing.T, data []byte) {
	t.Helper()
	type member struct {
		key   string
		value string
		esc   bool
	}
	var got []member
	ok := eachMember(data, func(key, value []byte, esc bool) bool {
		got = append(got, member{string(key), string(value), esc})
		return true
	})
	isObject := json.Valid(data) && bytes.TrimLeft(data, " \t\r\n")[0] == '{'
	if ok != isObject {
		t.Fatalf("eachMember(%q) = %v, encoding/json reads it as an object: %v", data, ok, isObject)
	}
	if !ok {
		return
	}
	var want []member
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token() // {
	for dec.More() {
		tok, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		want = append(want, member{key: tok.(string), value: string(v)})
	}
	if len(got) != len(want) {
		t.Fatalf("eachMember(%q) = %+v, encoding/json %+v", data, got, want)
	}
	for i, m := range got {
		// The key as encoding/json unquotes it (invalid UTF-8 made U+FFFD).
		var key string
		if err := json.Unmarshal([]byte(`"`+m.key+`"`), &key); err != nil {
			t.Fatal(err)
		}
		if key != want[i].key || m.value != want[i].value || m.esc != strings.Contains(m.key, `\`) {
			t.Errorf("eachMember(%q) member %d = %+v, encoding/json %+v", data, i, m, want[i])
		}
	}
}

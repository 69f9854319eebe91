package exactjson_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/acpconform/acpconform/internal/exactjson"
)

type answer struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content"`
	Code    json.Number     `json:"code"`
}

func TestUnmarshalMatchesNamesExactly(t *testing.T) {
	for _, tc := range []struct {
		text string
		want answer
	}{
		{`{"Action":"accept","Content":{"choice":"choice_0"}}`, answer{}},
		{`{"ACTION":"accept","content":{}}`, answer{Content: json.RawMessage(`{}`)}},
		{`{"action":"decline","Action":"accept"}`, answer{Action: "decline"}},
		{`{"Action":"accept","action":"decline"}`, answer{Action: "decline"}},
		{`{"action":"accept","action":"decline"}`, answer{Action: "decline"}}, // the last, as JSON.parse reads it
		{`{"code":-32601}`, answer{Code: "-32601"}},
	} {
		var got answer
		if err := exactjson.Unmarshal([]byte(tc.text), &got); err != nil {
			t.Errorf("Unmarshal(%s): %v", tc.text, err)
			continue
		}
		if got.Action != tc.want.Action || string(got.Content) != string(tc.want.Content) || got.Code != tc.want.Code {
			t.Errorf("Unmarshal(%s) = %+v, want %+v", tc.text, got, tc.want)
		}
	}
}

func TestUnmarshalKeepsJSONTypes(t *testing.T) {
	for _, text := range []string{`{"code":"-32601"}`, `{"action":1}`, `{"code":true}`} {
		var got answer
		if err := exactjson.Unmarshal([]byte(text), &got); err == nil {
			t.Errorf("Unmarshal(%s) = %+v, nil; want an error", text, got)
		}
	}
}

func TestReadings(t *testing.T) {
	for _, tc := range []struct {
		text  string
		want  []string
		dups  []string // pointers
		words string
	}{
		{`{"action":"decline"}`, []string{`{"action":"decline"}`}, nil, ""},
		{`{"action":"decline","Action":"accept"}`, []string{`{"action":"decline","Action":"accept"}`}, nil, ""},
		{`not json`, []string{`not json`}, nil, ""},
		{
			`{"action":"decline","content":{"name":"Ada"},"content":null}`,
			[]string{`{"action":"decline","content":{"name":"Ada"}}`, `{"action":"decline","content":null}`},
			[]string{"/content"}, `"content"`,
		},
		{
			` {"action":"accept", "content":{"choice":"choice_0","choice":"choice_9"},"action":"decline"} `,
			[]string{`{"action":"accept","content":{"choice":"choice_0"}}`, `{"action":"decline","content":{"choice":"choice_9"}}`},
			[]string{"/content/choice", "/action"}, `"choice" in /content and "action"`,
		},
		{
			`[{"a/b":1,"a/b":2},{"x":[]}]`,
			[]string{`[{"a/b":1},{"x":[]}]`, `[{"a/b":2},{"x":[]}]`},
			[]string{"/0/a~1b"}, `"a/b" in /0`,
		},
		{
			`{"\u0061":1,"a":2}`, // one name, once escaped
			[]string{`{"\u0061":1}`, `{"\u0061":2}`},
			[]string{"/a"}, `"a"`,
		},
	} {
		readings, dups := exactjson.Readings([]byte(tc.text))
		if got := fmt.Sprintf("%s", readings); got != fmt.Sprintf("%s", tc.want) {
			t.Errorf("Readings(%s) = %s, want %s", tc.text, got, tc.want)
		}
		var pointers []string
		for _, d := range dups {
			pointers = append(pointers, d.Pointer)
		}
		if fmt.Sprint(pointers) != fmt.Sprint(tc.dups) {
			t.Errorf("Readings(%s) dups %q, want %q", tc.text, pointers, tc.dups)
		}
		if got := exactjson.Say(dups); got != tc.words {
			t.Errorf("Say(dups of %s) = %s, want %s", tc.text, got, tc.words)
		}
	}
}

func ExampleReadings() {
	readings, dups := exactjson.Readings([]byte(`{"action":"decline","content":{"name":"Ada"},"content":null}`))
	for _, r := range readings {
		fmt.Println(string(r))
	}
	fmt.Println("names twice:", exactjson.Say(dups))
	// Output:
	// {"action":"decline","content":{"name":"Ada"}}
	// {"action":"decline","content":null}
	// names twice: "content"
}

func TestOnEveryReading(t *testing.T) {
	judge := func(reading []byte) []string {
		var a answer
		if err := exactjson.Unmarshal(reading, &a); err != nil {
			return []string{err.Error()}
		}
		var out []string
		if a.Action != "decline" {
			out = append(out, fmt.Sprintf("the action is %q", a.Action))
		}
		if a.Content != nil {
			out = append(out, "content")
		}
		return out
	}
	for text, want := range map[string][]string{
		`{"action":"decline"}`:                                     nil,
		`{"action":"decline","Content":{}}`:                        nil,
		`{"action":"decline","content":{},"content":null}`:         {"content"}, // null is there too
		`{"action":"accept","action":"decline"}`:                   {`the action is "accept" (reading the first of the duplicate "action")`},
		`{"action":"decline","action":"cancel","content":{}}`:      {"content", `the action is "cancel" (reading the last of the duplicate "action")`},
		`{"action":"x","content":{"a":1,"a":2},"action":"x"}`:      {`the action is "x"`, "content"},
		`{"action":"decline","content":{"a":1,"a":2}}`:             {"content"},
		`{"action":"decline","content":{"a":1},"content":{"a":1}}`: {"content"},
	} {
		if got := exactjson.OnEveryReading([]byte(text), judge); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("OnEveryReading(%s) = %q, want %q", text, got, want)
		}
	}
}

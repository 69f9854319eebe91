package reference_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reference"
)

// everyShape is a form with a property of every shape of schema 1.21.0.
const everyShape = `{"type":"object","required":["name","age"],"properties":{
	"name":{"type":"string","title":"Name","minLength":2,"maxLength":5},
	"email":{"type":"string","format":"email"},
	"site":{"type":"string","format":"uri"},
	"born":{"type":"string","format":"date"},
	"at":{"type":"string","format":"date-time"},
	"code":{"type":"string","pattern":"^[A-Z]{3}$"},
	"age":{"type":"integer","minimum":0,"maximum":150},
	"ratio":{"type":"number","minimum":-0.5,"maximum":0.5},
	"agree":{"type":"boolean","default":false},
	"color":{"type":"string","enum":["red","green"]},
	"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
	"tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b","c"]}},
	"langs":{"type":"array","items":{"anyOf":[{"const":"go","title":"Go"},{"const":"ts","title":"TypeScript"}]}},
	"custom":{"type":"_vendor"}}}`

func TestContentProblems(t *testing.T) {
	for _, tc := range []struct {
		content string
		want    string // a part of the one problem; "" for valid content
	}{
		{`{"name":"Ada","age":36}`, ""},
		{`{"name":"Ada","age":36.0}`, ""}, // JSON Schema's integer is a value
		{`{"name":"Ada","age":36,"email":"ada@example.com","site":"https://example.com/x","born":"1815-12-10",
			"at":"2026-12-04T10:00:00Z","code":"ABC","ratio":0.5,"agree":true,"color":"red","size":"l",
			"tags":["a","c"],"langs":["go","ts"],"custom":"x"}`, ""},
		{`{"name":"Ada","age":"36"}`, `"age" is "36", want an integer`},
		{`{"name":"Ada","age":36.5}`, `want an integer`},
		{`{"name":"Ada","age":151}`, `above the maximum 150`},
		{`{"name":"Ada","age":-1}`, `below the minimum 0`},
		{`{"name":"Ada"}`, `the required property "age" is missing`},
		{`{"age":1}`, `the required property "name" is missing`},
		{`{"name":"A","age":1}`, `shorter than minLength 2`},
		{`{"name":"Adaline","age":1}`, `longer than maxLength 5`},
		{`{"name":"😀😀","age":1}`, ""}, // two code points
		{`{"name":"Ada","age":1,"email":"ada"}`, `not of the format "email"`},
		{`{"name":"Ada","age":1,"site":"not a uri"}`, `not of the format "uri"`},
		{`{"name":"Ada","age":1,"born":"10/12/1815"}`, `not of the format "date"`},
		{`{"name":"Ada","age":1,"at":"2026-12-04"}`, `not of the format "date-time"`},
		{`{"name":"Ada","age":1,"code":"abc"}`, `does not match the pattern`},
		{`{"name":"Ada","age":1,"ratio":0.75}`, `above the maximum 0.5`},
		{`{"name":"Ada","age":1,"ratio":"0.1"}`, `want a number`},
		{`{"name":"Ada","age":1,"agree":"true"}`, `want a boolean`},
		{`{"name":"Ada","age":1,"color":"blue"}`, `none of the offered`},
		{`{"name":"Ada","age":1,"size":"m"}`, `none of the offered`},
		{`{"name":"Ada","age":1,"tags":[]}`, `fewer than minItems 1`},
		{`{"name":"Ada","age":1,"tags":["a","b","c"]}`, `more than maxItems 2`},
		{`{"name":"Ada","age":1,"tags":["z"]}`, `has the item "z"`},
		{`{"name":"Ada","age":1,"tags":"a"}`, `want an array of strings`},
		{`{"name":"Ada","age":1,"tags":["a",null]}`, `want an array of strings`},
		{`{"name":"Ada","age":1,"langs":["rust"]}`, `has the item "rust"`},
		{`{"name":"Ada","age":1,"custom":{"x":1}}`, `no elicitation content value`},
		{`{"name":"Ada","age":1,"nick":"A"}`, ""}, // JSON Schema allows additional properties
		{`{"name":"Ada","age":1,"nick":{"a":1}}`, `"nick", a property the form does not declare, holds {"a":1}, no elicitation content value`},
		{`{"name":"Ada","age":null}`, `want an integer`},
		{`{"name":"Ada","age":1e999999999}`, `want an integer`},
		{`["Ada"]`, `not a JSON object`},
		{`null`, `the required property "age" is missing`},
	} {
		got := reference.ContentProblems(json.RawMessage(everyShape), json.RawMessage(tc.content))
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("content %s: %q, want no problem", tc.content, got)
		case tc.want != "" && (len(got) == 0 || !strings.Contains(strings.Join(got, "; "), tc.want)):
			t.Errorf("content %s: %q, want a problem saying %q", tc.content, got, tc.want)
		}
	}
}

func TestContentProblemsWithoutRequired(t *testing.T) {
	for _, content := range []string{``, `null`, `{}`} {
		if got := reference.ContentProblems(json.RawMessage(`{"type":"object","properties":{"x":{"type":"boolean"}}}`), json.RawMessage(content)); got != nil {
			t.Errorf("content %q of a form with nothing required: %q, want no problem (absent and null are the same)", content, got)
		}
	}
}

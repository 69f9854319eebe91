package script

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// FuzzLookup holds lookup to gjson, which the mock client used before:
// on any JSON text, both find the same bytes at each path, or neither
// finds anything. On what is not JSON, lookup must only not panic.
//
//	go test -run '^$' -fuzz FuzzLookup -fuzztime 60s ./mocks/script
func FuzzLookup(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","message":"a \"b\" {c}","requestedSchema":{"type":"object","properties":{"choice":{"type":"string","default":"choice_1","oneOf":[{"const":"choice_0","title":"A"},{"title":"B","const":"choice_1"}]}}}}`))
	f.Add([]byte(` { "requestedSchema" : { "properties" : { "choice" : { "oneOf" : [ 1 , { "const" : [ "x" , { } ] } ] } } } } `))
	f.Add([]byte(`{"requestedSchema":{"properties":{"choice":{"oneOf":[{"c\u006fnst":true}]}}}}`))
	f.Add([]byte(`{"requestedSchema":{"properties":{"choice":{"default":null,"default":1}}}}`))
	f.Add([]byte(`[{"requestedSchema":{}}]`))
	paths := [][]string{
		{"requestedSchema", "properties", "choice", "oneOf", "1", "const"},
		{"requestedSchema", "properties", "choice", "oneOf", "0", "const"},
		{"requestedSchema", "properties", "choice", "default"},
		{"requestedSchema"},
		{"0", "requestedSchema"},
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, path := range paths {
			got := lookup(doc, path...)
			if !json.Valid(doc) {
				continue
			}
			want := gjson.GetBytes(doc, strings.Join(path, "."))
			if string(got) != want.Raw || (got == nil) == want.Exists() {
				t.Fatalf("lookup(%q, %q) = %q, gjson finds %q (exists: %v)", doc, path, got, want.Raw, want.Exists())
			}
		}
	})
}

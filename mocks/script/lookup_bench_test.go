package script

import (
	"testing"

	"github.com/tidwall/gjson"
)

var benchParams = []byte(`{"sessionId":"bench","mode":"form","message":"Choose a deployment target","requestedSchema":{"type":"object","properties":{"choice":{"type":"string","title":"Choose a deployment target","oneOf":[{"const":"choice_0","title":"Preview"},{"const":"choice_1","title":"Production","description":"Deploy to the production environment."}],"default":"choice_1"}},"required":["choice"]}}`)

// BenchmarkLookup times the mock client's lookup of the picked option
// beside gjson's.
//
//	go test -run '^$' -bench Lookup -benchmem ./mocks/script
func BenchmarkLookup(b *testing.B) {
	b.Run("lookup", func(b *testing.B) {
		for b.Loop() {
			if lookup(benchParams, "requestedSchema", "properties", "choice", "oneOf", "1", "const") == nil {
				b.Fatal("not found")
			}
		}
	})
	b.Run("gjson", func(b *testing.B) {
		for b.Loop() {
			if !gjson.GetBytes(benchParams, "requestedSchema.properties.choice.oneOf.1.const").Exists() {
				b.Fatal("not found")
			}
		}
	})
}

package peer

import (
	"testing"

	"github.com/tidwall/gjson"
)

// benchFrame is an elicitation/create as the reference sends it.
var benchFrame = []byte(`{"id":7,"jsonrpc":"2.0","method":"elicitation/create","params":{"sessionId":"bench","mode":"form","message":"Choose a deployment target","requestedSchema":{"type":"object","properties":{"choice":{"type":"string","title":"Choice","oneOf":[{"const":"choice_0","title":"Preview"},{"const":"choice_1","title":"Production","_meta":{"acpkit.dev/choice-description":"Deploy to the production environment."}}],"default":"choice_1"}},"required":["choice"]}}}`)

// BenchmarkDecode times decode on one request, beside gjson's validation
// alone, which it used to run before two more passes.
//
//	go test -run '^$' -bench Decode -benchmem ./mocks/peer
func BenchmarkDecode(b *testing.B) {
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := decode(benchFrame); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gjson.ValidBytes", func(b *testing.B) {
		for b.Loop() {
			if !gjson.ValidBytes(benchFrame) {
				b.Fatal("invalid")
			}
		}
	})
}

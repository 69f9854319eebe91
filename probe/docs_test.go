package probe_test

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/probe/schema"
)

// exampleMarker precedes every JSON block of docs/probe.md, saying which
// schema its documents follow: <!-- example: outcome -->, or with
// ", invalid" a counter-example, or "json" for JSON that is no probe
// document (JSON-RPC frames).
var exampleMarker = regexp.MustCompile(`^\s*<!-- example: (request|outcome|user|json)(, invalid)? -->\s*$`)

// TestSchemaDocExamples validates every JSON example in docs/probe.md, so
// that the document and the schemas cannot drift apart. A counter-example
// must fail, and the document must quote the harness's error for it.
func TestSchemaDocExamples(t *testing.T) {
	const path = "../docs/probe.md"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		marker     []string // of the block being read
		lastMarked int
		inBlock    bool
		block      strings.Builder
		blocks     int
		seen       = map[string]int{}
	)
	sc := bufio.NewScanner(strings.NewReader(string(text)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case inBlock && trimmed == "```":
			inBlock = false
			blocks++
			checkExample(t, path, lastMarked, marker, block.String(), string(text), seen)
			marker = nil
		case inBlock:
			block.WriteString(line + "\n")
		case trimmed == "```json":
			if marker == nil {
				t.Errorf("%s:%d: a JSON block without an <!-- example: ... --> line before it", path, n)
			}
			inBlock = true
			block.Reset()
		case exampleMarker.MatchString(line):
			marker = exampleMarker.FindStringSubmatch(line)
			lastMarked = n
		case trimmed != "" && marker != nil:
			t.Errorf("%s:%d: an example marker not followed by a JSON block", path, lastMarked)
			marker = nil
		}
	}
	for _, name := range probe.SchemaNames() {
		if seen[name] == 0 || seen[name+", invalid"] == 0 {
			t.Errorf("%s has %d examples and %d counter-examples of the %s schema, want some of each", path, seen[name], seen[name+", invalid"], name)
		}
	}
	if blocks == 0 {
		t.Errorf("%s has no JSON blocks", path)
	}
}

func checkExample(t *testing.T, path string, line int, marker []string, block, doc string, seen map[string]int) {
	t.Helper()
	if marker == nil {
		return
	}
	name, invalid := marker[1], marker[2] != ""
	dec := json.NewDecoder(strings.NewReader(block))
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Errorf("%s:%d: document %d of the example is not JSON: %v", path, line, i+1, err)
			return
		}
		seen[name+marker[2]]++
		if name == "json" {
			continue
		}
		err := schema.Validate(name, raw)
		switch {
		case !invalid && err != nil:
			t.Errorf("%s:%d: the example %s: %v", path, line, raw, err)
		case invalid && err == nil:
			t.Errorf("%s:%d: the counter-example %s matches the %s schema", path, line, raw, name)
		case invalid && !strings.Contains(strings.Join(strings.Fields(doc), " "), err.Error()):
			t.Errorf("%s:%d: the document does not quote the error of the counter-example %s:\n%v", path, line, raw, err)
		}
	}
}

package probe

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/acpconform/acpconform/internal/elide"
)

// The names of the probe contract's JSON Schemas (draft 2020-12). Each is
// the file probe/schema/NAME.json, with the $id SchemaBase + NAME + ".json";
// `acpconform schema NAME` prints it.
const (
	SchemaRequest = "request" // a probe request (docs/probe.md §1.3)
	SchemaOutcome = "outcome" // an outcome (docs/probe.md §1.5)
	SchemaUser    = "user"    // a scripted-user instruction (docs/probe.md §2)
)

// SchemaBase is the URL the schemas' $ids are under. It names version 1 of
// the probe contract and stays as long as the version does.
const SchemaBase = "https://acpconform.dev/schema/probe/v1/"

//go:embed schema/*.json
var schemaFiles embed.FS

// SchemaNames lists the schemas' names in the order of the contract:
// request, outcome, user.
func SchemaNames() []string { return []string{SchemaRequest, SchemaOutcome, SchemaUser} }

// Schema returns the JSON Schema called name as its file holds it, and
// false for a name that is none of [SchemaNames].
func Schema(name string) ([]byte, bool) {
	if !slices.Contains(SchemaNames(), name) {
		return nil, false
	}
	b, err := schemaFiles.ReadFile("schema/" + name + ".json")
	return b, err == nil
}

// what each schema's documents are called in a sentence.
var documentNames = map[string]string{
	SchemaRequest: "probe request",
	SchemaOutcome: "outcome",
	SchemaUser:    "scripted-user instruction",
}

// DocumentName is what the documents of the schema called name are
// called in a sentence: "probe request", "outcome".
func DocumentName(schema string) string {
	if n, ok := documentNames[schema]; ok {
		return n
	}
	return schema
}

// SchemaError is a document that does not match its probe contract schema.
type SchemaError struct {
	Schema     string     // the schema's name: "outcome"
	Mismatches []Mismatch // at least one, in the order of their instance paths
}

// NewSchemaError is the error of a document that breaks the schema called
// name in the ways mismatches say, in their order: outer values first, and
// of one value its broadest rule first; a mismatch found twice is listed
// once.
func NewSchemaError(name string, mismatches []Mismatch) *SchemaError {
	slices.SortFunc(mismatches, func(a, b Mismatch) int {
		return cmp.Or(
			strings.Compare(a.InstancePath, b.InstancePath),
			cmp.Compare(strings.Count(a.SchemaPath, "/"), strings.Count(b.SchemaPath, "/")),
			strings.Compare(a.SchemaPath, b.SchemaPath))
	})
	return &SchemaError{Schema: name, Mismatches: slices.Compact(mismatches)}
}

// Mismatch is one way a document breaks its schema.
type Mismatch struct {
	// InstancePath is the JSON Pointer of the offending value in the
	// document: "/index", "/choices/0/label"; "" is the document itself.
	InstancePath string
	// SchemaPath is the keyword that failed, in the schema's file:
	// "outcome.json#/properties/index/type".
	SchemaPath string
	// Problem says what is wrong in words: `want integer, got string ("1")`.
	Problem string
}

// maxMismatches is how many mismatches an error message lists; the rest
// are counted.
const maxMismatches = 5

// Error says in one sentence which document breaks which schema, then
// where and why:
//
//	outcome does not match the probe contract's outcome schema: at /index:
//	want integer, got string ("1") (schema: outcome.json#/properties/index/type)
func (e *SchemaError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s does not match the probe contract's %s schema: ", DocumentName(e.Schema), e.Schema)
	for i, m := range e.Mismatches {
		if i == maxMismatches {
			fmt.Fprintf(&b, "; and %d more", len(e.Mismatches)-maxMismatches)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(m.String())
	}
	return b.String()
}

// String says where and why: `at /index: want integer, got string ("1")
// (schema: outcome.json#/properties/index/type)`.
func (m Mismatch) String() string {
	where := "at " + m.InstancePath
	if m.InstancePath == "" {
		where = "at the top level"
	}
	return fmt.Sprintf("%s: %s (schema: %s)", where, m.Problem, m.SchemaPath)
}

// SchemaDescription is the description of the schema node at ref, a
// file's name and a fragment ("request.json#/$defs/fallback/allOf/0/then"),
// which for the nodes of the conditional rules states the rule. The root's
// description is not one: a ref without a fragment has none.
func SchemaDescription(ref string) string {
	file, fragment, ok := strings.Cut(ref, "#")
	if !ok || fragment == "" {
		return ""
	}
	node := schemaDocs()[strings.TrimSuffix(file, ".json")]
	for _, tok := range strings.Split(strings.TrimPrefix(fragment, "/"), "/") {
		switch v := node.(type) {
		case map[string]any:
			node = v[strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return ""
			}
			node = v[i]
		default:
			return ""
		}
	}
	m, _ := node.(map[string]any)
	d, _ := m["description"].(string)
	return d
}

// schemaDocs are the schemas decoded, by name.
var schemaDocs = sync.OnceValue(func() map[string]any {
	docs := map[string]any{}
	for _, name := range SchemaNames() {
		b, _ := Schema(name)
		var doc any
		_ = json.Unmarshal(b, &doc) // TestSchemasAreValid holds them to JSON
		docs[name] = doc
	}
	return docs
})

// maxShown bounds a value quoted in a mismatch: an agent may report a
// megabyte.
const maxShown = 60

// show writes a decoded JSON value as compact JSON, cut to maxShown bytes.
func show(v any) string { return elide.JSON(v, maxShown) }

package probe_test

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/probe/schema"
)

// schemaDoc returns the schema called name, decoded.
func schemaDoc(t *testing.T, name string) map[string]any {
	t.Helper()
	b, ok := probe.Schema(name)
	if !ok {
		t.Fatalf("Schema(%q) is missing", name)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the %s schema is not JSON: %v", name, err)
	}
	return doc
}

// at follows a JSON Pointer into a decoded schema.
func at(t *testing.T, doc any, pointer string) any {
	t.Helper()
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		m, ok := doc.(map[string]any)
		if !ok {
			t.Fatalf("no %s in the schema", pointer)
		}
		doc = m[tok]
	}
	if doc == nil {
		t.Fatalf("no %s in the schema", pointer)
	}
	return doc
}

func TestSchemaFiles(t *testing.T) {
	if _, ok := probe.Schema("outcome.json"); ok {
		t.Error(`Schema("outcome.json") is found; names have no extension`)
	}
	for _, name := range probe.SchemaNames() {
		doc := schemaDoc(t, name)
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("the %s schema's $schema is %v, want draft 2020-12", name, doc["$schema"])
		}
		if want := probe.SchemaBase + name + ".json"; doc["$id"] != want {
			t.Errorf("the %s schema's $id is %v, want %s", name, doc["$id"], want)
		}
		if doc["title"] == nil {
			t.Errorf("the %s schema has no title", name)
		}
		if d, _ := doc["description"].(string); !strings.Contains(d, "not listed here are allowed") {
			t.Errorf("the %s schema's description does not say that other members are allowed: %q", name, d)
		}
		if _, ok := doc["additionalProperties"]; ok {
			t.Errorf("the %s schema restricts additionalProperties; unknown members are allowed", name)
		}
		describedProperties(t, name, "", doc)
		// Each schema must compile and accept a document of its own.
		if err := schema.Validate(name, []byte(`{}`)); err == nil {
			t.Errorf("the %s schema accepts {}", name)
		} else if !errors.As(err, new(*probe.SchemaError)) {
			t.Errorf("Validate(%s, {}) = %v, want a *SchemaError", name, err)
		}
	}
	if err := schema.Validate("nonsense", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), `no schema is called "nonsense"`) {
		t.Errorf("Validate of an unknown schema = %v", err)
	}
}

// describedProperties fails for every property of a schema node, anywhere
// under it but in conditions, that has no description.
func describedProperties(t *testing.T, name, where string, node any) {
	t.Helper()
	switch n := node.(type) {
	case map[string]any:
		if props, ok := n["properties"].(map[string]any); ok {
			for p, s := range props {
				if m, _ := s.(map[string]any); m["description"] == nil {
					t.Errorf("the %s schema's property %s/properties/%s has no description", name, where, p)
				}
			}
		}
		for k, v := range n {
			if k != "if" { // a condition, not a member's rules
				describedProperties(t, name, where+"/"+k, v)
			}
		}
	case []any:
		for i, v := range n {
			describedProperties(t, name, where+"/"+strconv.Itoa(i), v)
		}
	}
}

// TestSchemaFieldsMatchGoTypes: every field of the Go types is a property
// of its schema and every property a field; a field is required in the
// schema (for a request, of op ask_choice) exactly when it is not omitempty.
func TestSchemaFieldsMatchGoTypes(t *testing.T) {
	for _, tc := range []struct {
		typ     reflect.Type
		schema  string
		pointer string // of the object schema
	}{
		{reflect.TypeFor[probe.Request](), probe.SchemaRequest, ""},
		{reflect.TypeFor[probe.Choice](), probe.SchemaRequest, "/$defs/choice"},
		{reflect.TypeFor[probe.Fallback](), probe.SchemaRequest, "/$defs/fallback"},
		{reflect.TypeFor[probe.Outcome](), probe.SchemaOutcome, ""},
		{reflect.TypeFor[probe.User](), probe.SchemaUser, ""},
	} {
		var node any = schemaDoc(t, tc.schema)
		if tc.pointer != "" {
			node = at(t, node, tc.pointer)
		}
		obj := node.(map[string]any)
		var props, required []string
		for p := range obj["properties"].(map[string]any) {
			props = append(props, p)
		}
		// An ask_choice request's question and choices are required by
		// the op's branch (allOf/0), and always written for that op.
		if tc.typ == reflect.TypeFor[probe.Request]() {
			askChoice := obj["allOf"].([]any)[0].(map[string]any)["then"].(map[string]any)
			for _, r := range askChoice["required"].([]any) {
				required = append(required, r.(string))
			}
		}
		for _, r := range obj["required"].([]any) {
			required = append(required, r.(string))
		}
		var fields, mandatory []string
		for i := range tc.typ.NumField() {
			f := tc.typ.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			fields = append(fields, name)
			if !strings.Contains(opts, "omitempty") {
				mandatory = append(mandatory, name)
			}
		}
		slices.Sort(props)
		slices.Sort(fields)
		slices.Sort(required)
		slices.Sort(mandatory)
		if !slices.Equal(props, fields) {
			t.Errorf("%s has the JSON fields %q, its schema %s#%s the properties %q", tc.typ, fields, tc.schema, tc.pointer, props)
		}
		if !slices.Equal(required, mandatory) {
			t.Errorf("%s always writes %q, its schema %s#%s requires %q", tc.typ, mandatory, tc.schema, tc.pointer, required)
		}
	}
}

// TestSchemaEnumsMatchConstants reads the package's constants from its
// source, so that a new kind, action or op cannot be left out of the
// schemas, nor a schema value lack its constant.
func TestSchemaEnumsMatchConstants(t *testing.T) {
	consts := stringConstants(t)
	enums := []struct {
		prefix, name, pointer string
	}{
		{"Outcome", probe.SchemaOutcome, "/properties/outcome/enum"},
		{"Error", probe.SchemaOutcome, "/properties/error/enum"},
		{"Fallback", probe.SchemaRequest, "/$defs/fallback/properties/kind/enum"},
		{"Action", probe.SchemaUser, "/properties/action/enum"},
		{"Op", probe.SchemaRequest, "/properties/op/enum"},
	}
	placed := map[string]bool{
		// Not enumerated values: each is checked below or is no schema value.
		"PickDefault": true, "WarningPlainValue": true, "UserMetaKey": true, "SchemaBase": true,
		"SchemaRequest": true, "SchemaOutcome": true, "SchemaUser": true,
	}
	for _, e := range enums {
		var values []string
		for name, v := range consts {
			if strings.HasPrefix(name, e.prefix) {
				values = append(values, v)
				placed[name] = true
			}
		}
		var enum []string
		for _, v := range at(t, schemaDoc(t, e.name), e.pointer).([]any) {
			enum = append(enum, v.(string))
		}
		slices.Sort(values)
		slices.Sort(enum)
		if len(values) == 0 || !slices.Equal(values, enum) {
			t.Errorf("the %s constants are %q, %s#%s is %q", e.prefix, values, e.name, e.pointer, enum)
		}
	}
	for name := range consts {
		if !placed[name] {
			t.Errorf("the constant %s has no place in a schema: add it to an enum, or to this test", name)
		}
	}
	if got := at(t, schemaDoc(t, probe.SchemaUser), "/properties/pick/then/const"); got != probe.PickDefault {
		t.Errorf("user.json's pick names %v for the default, want %q", got, probe.PickDefault)
	}
	if d := at(t, schemaDoc(t, probe.SchemaOutcome), "/properties/warnings/description").(string); !strings.Contains(d, strconv.Quote(probe.WarningPlainValue)) {
		t.Errorf("outcome.json's warnings do not name %q: %s", probe.WarningPlainValue, d)
	}
	for _, name := range []string{probe.SchemaRequest, probe.SchemaOutcome} {
		if got := at(t, schemaDoc(t, name), "/properties/acpconform/const"); got != float64(probe.Version) {
			t.Errorf("%s.json's acpconform is %v, want %d", name, got, probe.Version)
		}
	}
}

// stringConstants are the package's exported string constants, by name.
func stringConstants(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	out := map[string]string{}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i >= len(vs.Values) || !n.IsExported() {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out[n.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("found no constants")
	}
	return out
}

// TestSchemaDocuments: what each schema accepts and refuses, and where it
// says the mismatch is.
func TestSchemaDocuments(t *testing.T) {
	for _, tc := range []struct {
		schema, doc string
		at          string // "": valid; otherwise the first mismatch's instance and schema paths
	}{
		// Requests.
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":{"a":[1]},"label":"A","description":"d","default":true}]}`, ""},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":" ","choices":[],"fallback":null}`, ""},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"","choices":null}`, ""},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":null,"label":""}],"fallback":{"kind":"plain","value":null},"fallbackDelayMs":0}`, ""},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"error","message":""},"future":{"x":1}}`, ""},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"label":"A"}]}`, `/choices/0 request.json#/$defs/choice/required`},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":1,"label":"A","description":""}]}`, `/choices/0/description request.json#/$defs/choice/properties/description/minLength`},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":1,"label":"A","description":null}]}`, `/choices/0/description request.json#/$defs/choice/properties/description/type`},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[{"value":1,"label":"A","default":"yes"}]}`, `/choices/0/default request.json#/$defs/choice/properties/default/type`},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"accepted"}}`, `/fallback request.json#/$defs/fallback/allOf/0/then/required`},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"error"}}`, `/fallback request.json#/$defs/fallback/allOf/1/then/required`},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallback":{"kind":"declined","value":1}}`, `/fallback/value request.json#/$defs/fallback/allOf/0/else/properties/value/not`},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallbackDelayMs":-1}`, `/fallbackDelayMs request.json#/properties/fallbackDelayMs/minimum`},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":"Q","choices":[],"fallbackDelayMs":1.5}`, `/fallbackDelayMs request.json#/properties/fallbackDelayMs/type`},
		{probe.SchemaRequest, `{"acpconform":1,"op":"ask_choice","question":null,"choices":[]}`, `/question request.json#/properties/question/type`},
		// Outcomes.
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"accepted","index":1,"value":"production","warnings":[]}`, ""},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"accepted","index":-1,"value":null}`, ""},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"declined","warnings":["plain-value-fallback"]}`, ""},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"cancelled","detail":"for people"}`, ""},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"error","error":"invalid_fallback","message":"not offered","warnings":["plain-value-fallback"]}`, ""},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"error","error":"request_error","code":4242,"message":"","data":null}`, ""},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"error","error":"request_error","code":-32601,"message":"Method not found"}`, ""},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"error","error":"not_offered","message":""}`, ""},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"error","error":"not_offered"}`, ` outcome.json#/allOf/1/then/required`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"declined","error":"not_offered"}`, `/error outcome.json#/allOf/1/else/properties/error/not`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"accepted","index":"1","value":1}`, `/index outcome.json#/properties/index/type`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"accepted","index":-2,"value":1}`, `/index outcome.json#/properties/index/minimum`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"accepted","index":1}`, ` outcome.json#/allOf/0/then/then/required`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"declined","index":0}`, `/index outcome.json#/allOf/0/else/properties/index/not`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"error","error":"internal"}`, ` outcome.json#/allOf/1/then/required`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"error","error":"request_error","message":"m"}`, ` outcome.json#/allOf/2/then/required`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"error","error":"fallback_error","message":"m","data":{}}`, `/data outcome.json#/allOf/2/else/properties/data/not`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"error","error":"timeout","message":"m"}`, `/error outcome.json#/properties/error/enum`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"declined","warnings":"plain-value-fallback"}`, `/warnings outcome.json#/properties/warnings/type`},
		{probe.SchemaOutcome, `{"acpconform":1,"outcome":"declined","message":"no"}`, `/message outcome.json#/allOf/1/else/properties/message/not`},
		{probe.SchemaOutcome, `{"acpconform":"1","outcome":"declined"}`, `/acpconform outcome.json#/properties/acpconform/const`},
		// Scripted-user instructions.
		{probe.SchemaUser, `{"action":"accept","pick":1}`, ""},
		{probe.SchemaUser, `{"action":"accept","pick":"default"}`, ""},
		{probe.SchemaUser, `{"action":"decline"}`, ""},
		{probe.SchemaUser, `{"action":"cancel","later":true}`, ""},
		{probe.SchemaUser, `{"action":"accept"}`, ""}, // a URL elicitation's
		{probe.SchemaUser, `{"action":"accept","content":{"name":"Ada","age":36,"tags":["a"],"ok":true}}`, ""},
		{probe.SchemaUser, `{"action":"wait"}`, ""},
		{probe.SchemaUser, `{"action":"accept","pick":0,"content":{}}`, ` user.json#/then/not`},
		{probe.SchemaUser, `{"action":"accept","content":{"x":null}}`, `/content/x user.json#/properties/content/additionalProperties/type`},
		{probe.SchemaUser, `{"action":"decline","content":{}}`, `/content user.json#/else/properties/content/not`},
		{probe.SchemaUser, `{"action":"decline","pick":0}`, `/pick user.json#/else/properties/pick/not`},
		{probe.SchemaUser, `{"action":"accept","pick":"first"}`, `/pick user.json#/properties/pick/then/const`},
		{probe.SchemaUser, `{"action":"accept","pick":-1}`, `/pick user.json#/properties/pick/minimum`},
		{probe.SchemaUser, `{"action":"_defer"}`, `/action user.json#/properties/action/enum`},
	} {
		err := schema.Validate(tc.schema, []byte(tc.doc))
		var se *probe.SchemaError
		switch {
		case tc.at == "" && err != nil:
			t.Errorf("%s: %s: %v, want valid", tc.schema, tc.doc, err)
		case tc.at == "":
		case !errors.As(err, &se):
			t.Errorf("%s: %s: %v, want a mismatch at %s", tc.schema, tc.doc, err, tc.at)
		case se.Mismatches[0].InstancePath+" "+se.Mismatches[0].SchemaPath != tc.at:
			t.Errorf("%s: %s: the first mismatch is %s, want one at %s\n%v", tc.schema, tc.doc, se.Mismatches[0], tc.at, err)
		}
	}
}

// TestSchemaErrorWording: one sentence saying which schema, then where and
// why, with the value quoted and the keyword's place in the schema file.
func TestSchemaErrorWording(t *testing.T) {
	for doc, want := range map[string]string{
		`{"acpconform":1,"outcome":"accepted","index":"1","value":"production"}`: `outcome does not match the probe contract's outcome schema: at /index: want integer, got string ("1") (schema: outcome.json#/properties/index/type)`,
		`{"acpconform":1,"outcome":"accepted","index":0}`:                        `outcome does not match the probe contract's outcome schema: at the top level: missing "value": an accepted outcome of ask_choice has index and value (schema: outcome.json#/allOf/0/then/then/required)`,
		`{"acpconform":1,"outcome":"declined","index":0}`:                        `outcome does not match the probe contract's outcome schema: at /index: only an accepted outcome has an index (schema: outcome.json#/allOf/0/else/properties/index/not)`,
		`{"acpconform":1,"outcome":"maybe"}`:                                     `outcome does not match the probe contract's outcome schema: at /outcome: want one of "accepted", "declined", "cancelled", "error", got "maybe" (schema: outcome.json#/properties/outcome/enum)`,
		`{"acpconform":1,"outcome":"accepted","index":1,"value":1,"warnings":[1,2,3,4,5,6]}`: `outcome does not match the probe contract's outcome schema: at /warnings/0: want string, got number (1) (schema: outcome.json#/properties/warnings/items/type); ` +
			`at /warnings/1: want string, got number (2) (schema: outcome.json#/properties/warnings/items/type); at /warnings/2: want string, got number (3) (schema: outcome.json#/properties/warnings/items/type); ` +
			`at /warnings/3: want string, got number (4) (schema: outcome.json#/properties/warnings/items/type); at /warnings/4: want string, got number (5) (schema: outcome.json#/properties/warnings/items/type); and 1 more`,
		`{"acpconform":1,"outcome":"accepted","index":"` + strings.Repeat("9", 100) + `","value":1}`: `at /index: want integer, got string ("` + strings.Repeat("9", 59) + ` … [102 bytes in all])`,
	} {
		err := schema.Validate(probe.SchemaOutcome, []byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(%.80s) =\n%v\nwant\n%s", doc, err, want)
		}
	}
	err := schema.Validate(probe.SchemaUser, []byte(`{"action":"accept","pick":true}`))
	if want := `scripted-user instruction does not match the probe contract's user schema: at /pick: want integer or string, got boolean (true) (schema: user.json#/properties/pick/type)`; err == nil || err.Error() != want {
		t.Errorf("Validate(user) = %v\nwant %s", err, want)
	}
}

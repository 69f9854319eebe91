package probe

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
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

// schemas are the schemas decoded, to look up what a mismatch means, and
// each compiled at its first use: an agent validates requests only, and
// compiling all three cost its every process about 1 ms more.
type schemas struct {
	docs     map[string]any
	mu       sync.Mutex // guards what follows
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

// loaded decodes the schemas once and hands them to a compiler.
var loaded = sync.OnceValues(func() (*schemas, error) {
	s := &schemas{docs: map[string]any{}, compiler: jsonschema.NewCompiler(), compiled: map[string]*jsonschema.Schema{}}
	for _, name := range SchemaNames() {
		b, _ := Schema(name)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return s, fmt.Errorf("probe: the %s schema: %w", name, err)
		}
		if err := s.compiler.AddResource(SchemaBase+name+".json", doc); err != nil {
			return s, fmt.Errorf("probe: the %s schema: %w", name, err)
		}
		s.docs[name] = doc
	}
	return s, nil
})

// schema returns the schema called name, compiled.
func (all *schemas) schema(name string) (*jsonschema.Schema, error) {
	if !slices.Contains(SchemaNames(), name) {
		return nil, fmt.Errorf("probe: no schema is called %q (want one of %s)", name, strings.Join(SchemaNames(), ", "))
	}
	all.mu.Lock()
	defer all.mu.Unlock()
	if sch, ok := all.compiled[name]; ok {
		return sch, nil
	}
	sch, err := all.compiler.Compile(SchemaBase + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("probe: compiling the %s schema: %w", name, err)
	}
	all.compiled[name] = sch
	return sch, nil
}

// CompileSchemas compiles the schemas called names (none: all of them) now,
// not at their first validation, which is otherwise the first document's
// to wait for (about 1 ms each). A process that validates soon after it
// starts, such as an agent waiting for its first prompt, calls it in a
// goroutine of its own as it starts.
func CompileSchemas(names ...string) {
	all, err := loaded()
	if err != nil {
		return
	}
	if len(names) == 0 {
		names = SchemaNames()
	}
	for _, name := range names {
		_, _ = all.schema(name)
	}
}

// what each schema's documents are called in a sentence.
var documentNames = map[string]string{
	SchemaRequest: "probe request",
	SchemaOutcome: "outcome",
	SchemaUser:    "scripted-user instruction",
}

// Validate checks the JSON text doc against the schema called name. It
// returns nil when doc matches, a *[SchemaError] saying where and why when
// it does not, and another error when doc is not one JSON value or name is
// no schema.
func Validate(name string, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("the %s is not one JSON value: %w", documentName(name), err)
	}
	return validate(name, v)
}

func validate(name string, v any) error {
	all, err := loaded()
	if err != nil {
		return err
	}
	s, err := all.schema(name)
	if err != nil {
		return err
	}
	var verr *jsonschema.ValidationError
	if err := s.Validate(v); errors.As(err, &verr) {
		return schemaError(all, name, v, verr)
	} else if err != nil {
		return fmt.Errorf("validating the %s: %w", documentName(name), err)
	}
	return nil
}

func documentName(schema string) string {
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
	fmt.Fprintf(&b, "%s does not match the probe contract's %s schema: ", documentName(e.Schema), e.Schema)
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

// schemaError turns the validator's tree of errors into its leaves, the
// keywords that failed, in words.
func schemaError(all *schemas, name string, doc any, verr *jsonschema.ValidationError) *SchemaError {
	e := &SchemaError{Schema: name}
	var walk func(*jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			e.Mismatches = append(e.Mismatches, all.mismatch(doc, v))
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(verr)
	slices.SortFunc(e.Mismatches, func(a, b Mismatch) int { // outer values first, and of one value its broadest rule
		return cmp.Or(
			strings.Compare(a.InstancePath, b.InstancePath),
			cmp.Compare(strings.Count(a.SchemaPath, "/"), strings.Count(b.SchemaPath, "/")),
			strings.Compare(a.SchemaPath, b.SchemaPath))
	})
	e.Mismatches = slices.Compact(e.Mismatches)
	return e
}

func (all *schemas) mismatch(doc any, v *jsonschema.ValidationError) Mismatch {
	at := pointer(v.InstanceLocation)
	schemaURL := strings.TrimPrefix(v.SchemaURL, SchemaBase)
	path := schemaURL
	switch v.ErrorKind.(type) {
	case *kind.Reference:
	case *kind.Not:
		path += "/not"
	default:
		path += pointer(v.ErrorKind.KeywordPath())
	}
	got := lookup(doc, v.InstanceLocation)
	var problem string
	switch k := v.ErrorKind.(type) {
	case *kind.Type:
		problem = fmt.Sprintf("want %s, got %s (%s)", strings.Join(k.Want, " or "), k.Got, show(got))
	case *kind.Const:
		problem = fmt.Sprintf("want %s, got %s", show(k.Want), show(got))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = show(w)
		}
		problem = fmt.Sprintf("want one of %s, got %s", strings.Join(want, ", "), show(got))
	case *kind.Required:
		quoted := make([]string, len(k.Missing))
		for i, m := range k.Missing {
			quoted[i] = strconv.Quote(m)
		}
		problem = "missing " + strings.Join(quoted, " and ")
		if why := all.explanation(schemaURL); why != "" {
			problem += ": " + why
		}
	case *kind.Not, *kind.FalseSchema:
		problem = "not allowed here"
		if why := all.explanation(schemaURL); why != "" {
			problem = why
		}
	case *kind.Minimum:
		problem = fmt.Sprintf("want at least %s, got %s", k.Want.RatString(), show(got))
	case *kind.MinLength:
		problem = fmt.Sprintf("want at least %d %s, got %s", k.Want, plural(k.Want, "character", "characters"), show(got))
	default: // a keyword the schemas do not use today
		problem = fmt.Sprintf("%s breaks the schema's %q keyword", show(got), strings.Join(v.ErrorKind.KeywordPath(), "/"))
	}
	return Mismatch{InstancePath: at, SchemaPath: path, Problem: problem}
}

// explanation is the description of the schema node at url (a name and a
// fragment, "outcome.json#/allOf/0/then"), which for the nodes of the
// conditional rules says the rule; the root's is not one.
func (all *schemas) explanation(url string) string {
	file, fragment, ok := strings.Cut(url, "#")
	if !ok || fragment == "" {
		return ""
	}
	node := all.docs[strings.TrimSuffix(file, ".json")]
	for _, tok := range strings.Split(strings.TrimPrefix(fragment, "/"), "/") {
		node = child(node, unescape(tok))
	}
	m, _ := node.(map[string]any)
	d, _ := m["description"].(string)
	return d
}

// lookup returns the value at a JSON Pointer's tokens, or nil.
func lookup(doc any, tokens []string) any {
	for _, tok := range tokens {
		doc = child(doc, tok)
	}
	return doc
}

func child(v any, tok string) any {
	switch v := v.(type) {
	case map[string]any:
		return v[tok]
	case []any:
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(v) {
			return v[i]
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// pointer writes tokens as a JSON Pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

func unescape(tok string) string { return strings.NewReplacer("~1", "/", "~0", "~").Replace(tok) }

// maxShown bounds a value quoted in a mismatch: an agent may report a
// megabyte.
const maxShown = 60

// show writes a decoded JSON value as compact JSON, cut to maxShown bytes.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > maxShown {
		return fmt.Sprintf("%s... [%d bytes in all]", b[:maxShown], len(b))
	}
	return string(b)
}

// Package schema checks documents against the probe contract's JSON
// Schemas (probe/schema/*.json, draft 2020-12) and says, for each way one
// breaks them, where, which keyword and why, in the schema's own words.
//
// It is the harness's side of package probe: the JSON Schema library it
// uses compiles every draft's meta-schemas as a program starts (8 ms
// and 1.7 MB), which an agent started once per check should not pay, so
// probe, which agents import, reads requests without it.
package schema

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/internal/jsonscan"
	"github.com/acpconform/acpconform/probe"
)

// schemas are the schemas, each compiled at its first use: a program that
// checks outcomes only need not compile the others.
type schemas struct {
	mu       sync.Mutex // guards what follows
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

// loaded hands the schemas to a compiler, once.
var loaded = sync.OnceValues(func() (*schemas, error) {
	s := &schemas{compiler: jsonschema.NewCompiler(), compiled: map[string]*jsonschema.Schema{}}
	for _, name := range probe.SchemaNames() {
		b, _ := probe.Schema(name)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return s, fmt.Errorf("probe: the %s schema: %w", name, err)
		}
		if err := s.compiler.AddResource(probe.SchemaBase+name+".json", doc); err != nil {
			return s, fmt.Errorf("probe: the %s schema: %w", name, err)
		}
	}
	return s, nil
})

// schema returns the schema called name, compiled.
func (all *schemas) schema(name string) (*jsonschema.Schema, error) {
	if !slices.Contains(probe.SchemaNames(), name) {
		return nil, fmt.Errorf("probe: no schema is called %q (want one of %s)", name, strings.Join(probe.SchemaNames(), ", "))
	}
	all.mu.Lock()
	defer all.mu.Unlock()
	if sch, ok := all.compiled[name]; ok {
		return sch, nil
	}
	sch, err := all.compiler.Compile(probe.SchemaBase + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("probe: compiling the %s schema: %w", name, err)
	}
	all.compiled[name] = sch
	return sch, nil
}

// Validate checks the JSON text doc against the schema called name. It
// returns nil when doc matches, a *[SchemaError] saying where and why when
// it does not, and another error when doc is not one JSON value or name is
// no schema.
func Validate(name string, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("the %s is not one JSON value: %w", probe.DocumentName(name), err)
	}
	return validate(name, v, v)
}

// validate checks v against the schema called name; a mismatch quotes
// the value at its place in shown, v as the document had it.
func validate(name string, v, shown any) error {
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
		return schemaError(name, shown, verr)
	} else if err != nil {
		return fmt.Errorf("validating the %s: %w", probe.DocumentName(name), err)
	}
	return nil
}

// schemaError turns the validator's tree of errors into its leaves, the
// keywords that failed, in words.
func schemaError(name string, doc any, verr *jsonschema.ValidationError) *probe.SchemaError {
	var found []probe.Mismatch
	var walk func(*jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			found = append(found, mismatch(doc, v))
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(verr)
	return probe.NewSchemaError(name, found)
}

func mismatch(doc any, v *jsonschema.ValidationError) probe.Mismatch {
	at := pointer(v.InstanceLocation)
	schemaURL := strings.TrimPrefix(v.SchemaURL, probe.SchemaBase)
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
		if why := probe.SchemaDescription(schemaURL); why != "" {
			problem += ": " + why
		}
	case *kind.Not, *kind.FalseSchema:
		problem = "not allowed here"
		if why := probe.SchemaDescription(schemaURL); why != "" {
			problem = why
		}
	case *kind.Minimum:
		problem = fmt.Sprintf("want at least %s, got %s", k.Want.RatString(), show(got))
	case *kind.Maximum:
		problem = fmt.Sprintf("want at most %s, got %s", k.Want.RatString(), show(got))
	case *kind.MinLength:
		problem = fmt.Sprintf("want at least %d %s, got %s", k.Want, plural(k.Want, "character", "characters"), show(got))
	default: // a keyword the schemas do not use today
		problem = fmt.Sprintf("%s breaks the schema's %q keyword", show(got), strings.Join(v.ErrorKind.KeywordPath(), "/"))
	}
	return probe.Mismatch{InstancePath: at, SchemaPath: path, Problem: problem}
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

// maxShown bounds a value quoted in a mismatch: an agent may report a
// megabyte.
const maxShown = 60

// show writes a decoded JSON value as compact JSON, cut to maxShown bytes.
func show(v any) string { return elide.JSON(v, maxShown) }

// ParseOutcome reads an outcome report. It returns a *[probe.SchemaError]
// when text does not match the outcome schema, so that every error says
// what the adapter got wrong; integers are read by value ([probe.Integer]),
// so an index of 1.0 is 1 and one of 0e5 is 0. Member names are exact, as
// the schema names them: "Outcome" is an unknown member, allowed and
// ignored, never the outcome. It refuses, saying so, an outcome nested
// deeper than [probe.MaxDepth] or holding a number longer than 1000
// characters. An outcome that names a member twice is read both ways (the
// first of each duplicate, then the last) and is refused unless both
// readings match the schema and say the same. Its errors begin with
// "outcome", to follow "the agent's ".
func ParseOutcome(text string) (probe.Outcome, error) {
	readings, dups := exactjson.Readings([]byte(text))
	if len(readings) == 1 {
		return parseOutcome(text)
	}
	var read []probe.Outcome
	for i, r := range readings {
		o, err := parseOutcome(string(r))
		if err != nil {
			return probe.Outcome{}, fmt.Errorf("outcome names %s twice, and read with the %s of each, %w", exactjson.Say(dups), []string{"first", "last"}[i], err)
		}
		read = append(read, o)
	}
	first, _ := json.Marshal(read[0])
	last, _ := json.Marshal(read[1])
	if !probe.SameValue(first, last) {
		return probe.Outcome{}, fmt.Errorf("outcome names %s twice, and its two readings differ: %s with the first of each, %s with the last; an outcome has one meaning", exactjson.Say(dups), elide.Head(string(first), maxShown*2), elide.Head(string(last), maxShown*2))
	}
	return read[1], nil
}

// parseOutcome is ParseOutcome of a text in which no member is named
// twice.
func parseOutcome(text string) (probe.Outcome, error) {
	if shape, err := jsonscan.Scan(text); err == nil && shape.Depth > probe.MaxDepth {
		return probe.Outcome{}, fmt.Errorf("outcome nests %d levels deep, deeper than the %d acpconform reads", shape.Depth, probe.MaxDepth)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return probe.Outcome{}, fmt.Errorf("outcome is not one JSON value: %w", err)
	}
	if at, n := longNumber(doc, ""); n != "" {
		return probe.Outcome{}, fmt.Errorf("outcome has a number of %d characters at %s, more than the %d acpconform reads: %s", len(n), cmp.Or(at, "the top level"), maxNumber, show(n))
	}
	if err := validate(probe.SchemaOutcome, integersByValue(doc), doc); err != nil {
		return probe.Outcome{}, err
	}
	var o probe.Outcome
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		return probe.Outcome{}, fmt.Errorf("outcome: %w", err)
	}
	return o, nil
}

// integersByValue is an outcome whose integer members, however written,
// are written as the integers they are, for the validator: its reading
// of 0.0 as an integer is right, but 1e1000001 is beyond it, and
// 1e1000000 costs it 90 ms. An integer beyond ±probe.MaxInteger becomes
// the first one past it, which the schema's bounds refuse; a number with
// a fraction stays, which its "integer" refuses.
func integersByValue(doc any) any {
	obj, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	read := maps.Clone(obj)
	for _, name := range outcomeIntegers() {
		n, ok := obj[name].(json.Number)
		if !ok {
			continue
		}
		switch i, err := probe.Integer(n); {
		case err == nil:
			read[name] = json.Number(strconv.Itoa(i))
		case errors.Is(err, probe.ErrIntegerRange) && strings.HasPrefix(string(n), "-"):
			read[name] = json.Number(strconv.Itoa(-probe.MaxInteger - 1))
		case errors.Is(err, probe.ErrIntegerRange):
			read[name] = json.Number(strconv.Itoa(probe.MaxInteger + 1))
		}
	}
	return read
}

// outcomeIntegers names the members the outcome schema types "integer".
var outcomeIntegers = sync.OnceValue(func() []string {
	var doc struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	b, _ := probe.Schema(probe.SchemaOutcome)
	_ = json.Unmarshal(b, &doc) // TestSchemasAreValid holds it to JSON
	var names []string
	for name, p := range doc.Properties {
		if p.Type == "integer" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
})

// maxNumber bounds the length of a number in an outcome: the validator
// reads numbers with exact arithmetic, and one of a million digits cost
// it seconds. Indexes and codes have at most 20 characters.
const maxNumber = 1000

// longNumber finds a number in doc longer than maxNumber, and where.
func longNumber(doc any, at string) (string, json.Number) {
	switch v := doc.(type) {
	case json.Number:
		if len(v) > maxNumber {
			return at, v
		}
	case map[string]any:
		for k, m := range v {
			if at, n := longNumber(m, at+pointer([]string{k})); n != "" {
				return at, n
			}
		}
	case []any:
		for i, m := range v {
			if at, n := longNumber(m, at+"/"+strconv.Itoa(i)); n != "" {
				return at, n
			}
		}
	}
	return "", ""
}

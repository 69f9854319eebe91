package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acpconform/acpconform/internal/elide"
)

// ContentProblems says how an accepted form answer's content fails the
// form's requestedSchema (CONTRACT ELI-3, ELI-4), as ACP schema 1.21.0 reads
// it: content is an object (or absent or null, the same, when nothing is
// required) whose undeclared properties hold content values, each required one present, each
// value of its property's type (string, integer, number, boolean, or an
// array of strings), within its bounds (minLength, maxLength, pattern,
// format, minimum, maximum, minItems, maxItems) and, for a single- or
// multi-select, among the offered values. A property of a type the schema
// does not know (a custom one) takes any content value. It returns nil for
// valid content, and one problem per property otherwise, in property order.
func ContentProblems(requestedSchema, content json.RawMessage) []string {
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(requestedSchema, &schema); err != nil {
		return []string{fmt.Sprintf("the requested schema cannot be read: %v", err)}
	}
	var values map[string]json.RawMessage
	if len(content) > 0 && !isNull(content) {
		if err := json.Unmarshal(content, &values); err != nil || values == nil {
			return []string{fmt.Sprintf("the content is not a JSON object: %s", elide.Head(string(content), maxQuoted))}
		}
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(values)) {
		prop, declared := schema.Properties[name]
		if !declared {
			// Valid under JSON Schema: the requested schema does not forbid
			// additional properties (contract revision 5). Its value must
			// still be one the schema's content may hold.
			if !isContentValue(values[name]) {
				problems = append(problems, fmt.Sprintf("%q, a property the form does not declare, holds %s, no elicitation content value", elide.Head(name, maxQuoted), elide.Head(string(values[name]), maxQuoted)))
			}
			continue
		}
		if p := propertyProblem(prop, values[name]); p != "" {
			problems = append(problems, fmt.Sprintf("%q %s", name, p))
		}
	}
	for _, name := range schema.Required {
		if _, ok := values[name]; !ok {
			problems = append(problems, fmt.Sprintf("the required property %q is missing", name))
		}
	}
	return problems
}

// ContentShapeProblems says how an accepted form answer's content breaks
// the shape schema 1.21.0 gives every answer, whatever was asked
// (CONTRACT ELI-4, a MUST): content is absent, null, or an object whose
// members hold elicitation content values (a string, a number, a boolean,
// an array of strings). Whether it satisfies the requested schema is
// [ContentProblems]' question, a SHOULD (ELI-8). It returns nil for content
// of the right shape.
func ContentShapeProblems(content json.RawMessage) []string {
	if len(content) == 0 || isNull(content) {
		return nil
	}
	var values map[string]json.RawMessage
	if err := json.Unmarshal(content, &values); err != nil || values == nil {
		return []string{fmt.Sprintf("the content is not a JSON object: %s", elide.Head(string(content), maxQuoted))}
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if !isContentValue(values[name]) {
			problems = append(problems, fmt.Sprintf("%q holds %s, no elicitation content value (a string, a number, a boolean or an array of strings)", elide.Head(name, maxQuoted), elide.Head(string(values[name]), maxQuoted)))
		}
	}
	return problems
}

// property is what a form property of schema 1.21.0 says of its value.
type property struct {
	Type      string       `json:"type"`
	Format    *string      `json:"format"`
	Pattern   *string      `json:"pattern"`
	MinLength *int         `json:"minLength"`
	MaxLength *int         `json:"maxLength"`
	Minimum   json.Number  `json:"minimum"`
	Maximum   json.Number  `json:"maximum"`
	MinItems  *int         `json:"minItems"`
	MaxItems  *int         `json:"maxItems"`
	Enum      []string     `json:"enum"`
	OneOf     []enumOption `json:"oneOf"`
	Items     *property    `json:"items"`
	AnyOf     []enumOption `json:"anyOf"` // of titled multi-select items
}

type enumOption struct {
	Const string `json:"const"`
}

// allowed lists the values a single-select (or multi-select items) offers;
// nil when it offers no list.
func (p property) allowed() []string {
	if p.Enum != nil {
		return p.Enum
	}
	options := p.OneOf
	if options == nil {
		options = p.AnyOf
	}
	if options == nil {
		return nil
	}
	out := make([]string, len(options))
	for i, o := range options {
		out[i] = o.Const
	}
	return out
}

// propertyProblem says how value fails prop; "" when it does not.
func propertyProblem(rawProp, value json.RawMessage) string {
	var p property
	if err := json.Unmarshal(rawProp, &p); err != nil {
		return "" // a property the schema cannot read constrains nothing we can tell
	}
	shown := elide.Head(string(value), maxQuoted)
	switch p.Type {
	case "string":
		var s string
		if json.Unmarshal(value, &s) != nil || isNull(value) {
			return "is " + shown + ", want a string"
		}
		return stringProblem(p, s)
	case "integer", "number":
		n, ok := number(value)
		if !ok {
			return "is " + shown + ", want " + article(p.Type)
		}
		if p.Type == "integer" && !n.IsInt() {
			return "is " + shown + ", want an integer"
		}
		if min, ok := number(json.RawMessage(p.Minimum)); ok && n.Cmp(min) < 0 {
			return fmt.Sprintf("is %s, below the minimum %s", shown, p.Minimum)
		}
		if max, ok := number(json.RawMessage(p.Maximum)); ok && n.Cmp(max) > 0 {
			return fmt.Sprintf("is %s, above the maximum %s", shown, p.Maximum)
		}
	case "boolean":
		if !bytes.Equal(value, []byte("true")) && !bytes.Equal(value, []byte("false")) {
			return "is " + shown + ", want a boolean"
		}
	case "array":
		items, ok := stringArray(value)
		if !ok {
			return "is " + shown + ", want an array of strings"
		}
		if p.MinItems != nil && len(items) < *p.MinItems {
			return fmt.Sprintf("has %d items, fewer than minItems %d", len(items), *p.MinItems)
		}
		if p.MaxItems != nil && len(items) > *p.MaxItems {
			return fmt.Sprintf("has %d items, more than maxItems %d", len(items), *p.MaxItems)
		}
		if p.Items != nil {
			if allowed := p.Items.allowed(); allowed != nil {
				for _, it := range items {
					if !slices.Contains(allowed, it) {
						return fmt.Sprintf("has the item %q, none of the offered %q", elide.Head(it, maxQuoted), allowed)
					}
				}
			}
		}
	default: // a custom or future type: any content value
		if !isContentValue(value) {
			return "is " + shown + ", which is no elicitation content value (string, number, boolean or array of strings)"
		}
	}
	return ""
}

func article(kind string) string {
	if kind == "integer" {
		return "an integer"
	}
	return "a number"
}

// stringProblem says how s fails a string property's bounds, format and
// offered values.
func stringProblem(p property, s string) string {
	if allowed := p.allowed(); allowed != nil && !slices.Contains(allowed, s) {
		return fmt.Sprintf("is %q, none of the offered %q", elide.Head(s, maxQuoted), allowed)
	}
	// JSON Schema counts a string's length in code points.
	if n := utf8.RuneCountInString(s); p.MinLength != nil && n < *p.MinLength {
		return fmt.Sprintf("is %d characters long, shorter than minLength %d", n, *p.MinLength)
	} else if p.MaxLength != nil && n > *p.MaxLength {
		return fmt.Sprintf("is %d characters long, longer than maxLength %d", n, *p.MaxLength)
	}
	if p.Pattern != nil {
		// An ECMA-262 pattern Go cannot compile is not held against the value.
		if re, err := regexp.Compile(*p.Pattern); err == nil && !re.MatchString(s) {
			return fmt.Sprintf("is %q, which does not match the pattern %q", elide.Head(s, maxQuoted), *p.Pattern)
		}
	}
	if p.Format != nil && !hasFormat(*p.Format, s) {
		return fmt.Sprintf("is %q, not of the format %q", elide.Head(s, maxQuoted), *p.Format)
	}
	return ""
}

// hasFormat reports whether s is of one of schema 1.21.0's string formats;
// a format it does not name holds any string.
func hasFormat(format, s string) bool {
	switch format {
	case "email":
		a, err := mail.ParseAddress(s)
		return err == nil && a.Address == s
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != "" && !strings.ContainsAny(s, " \t\r\n")
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, s)
		return err == nil
	}
	return true
}

// number reads a JSON number exactly; ok is false for anything else.
func number(raw json.RawMessage) (*big.Rat, bool) {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || !(b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) || !json.Valid(b) {
		return nil, false
	}
	// A JSON number's exponent is bounded here: 1e999999999 would take
	// big.Rat a long time to expand, and no form bound needs it.
	if i := bytes.IndexAny(b, "eE"); i >= 0 && len(b)-i > 6 {
		return nil, false
	}
	return new(big.Rat).SetString(string(b))
}

// isContentValue reports whether raw is one of schema 1.21.0's elicitation
// content values: a string, a number, a boolean or an array of strings.
func isContentValue(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case string, float64, bool:
		return true
	case []any:
		for _, it := range v {
			if _, ok := it.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// stringArray reads a JSON array of strings; ok is false for anything
// else, an array holding a null included.
func stringArray(raw json.RawMessage) ([]string, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, false
	}
	out := make([]string, len(items))
	for i, it := range items {
		if isNull(it) || json.Unmarshal(it, &out[i]) != nil {
			return nil, false
		}
	}
	return out, true
}

package scenarios

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/probe"
)

// A relay that decodes each message into an SDK's types and encodes it
// again (acpremote's mirror, proxies built on an ACP SDK) may leave out a
// field whose value is the schema's default, or write it out, and may
// write nothing for a _meta that was null: REL-1 (revision 4) counts such a
// message unchanged. What the defaults are is the ACP schema's, v1 at
// schema 1.21.0 (schema/v1/schema.json of agentclientprotocol/
// agent-client-protocol, tag schema-v1.21.0); suite/contract.md lists them
// under REL-1. An object with no default of its own, such as
// clientCapabilities.elicitation, means something even when empty and is
// never left out.

// schemaDefault is a field's default, when it has one (value), and what
// the schema says of its own fields, when it is an object: their
// defaults (fields), those of its fields that may be null or omitted
// alike (nullable), and what holds for every field of a map of schemas
// (each) or every item of an array (items).
type schemaDefault struct {
	value    any
	fields   map[string]*schemaDefault
	nullable []string
	each     *schemaDefault
	items    *schemaDefault
}

func leaf(v any) *schemaDefault { return &schemaDefault{value: v} }

// nullableFields is an object whose named fields may be null or omitted
// alike ("Omitted and `null` are equivalent", the schema says of each).
func nullableFields(names ...string) *schemaDefault { return &schemaDefault{nullable: names} }

// propertySchema is what the schema says of a requested property
// (StringPropertySchema, NumberPropertySchema, ... MultiSelectPropertySchema,
// and EnumOption for each item of oneOf).
var propertySchema = &schemaDefault{
	nullable: []string{"title", "description", "minLength", "maxLength", "pattern", "format", "default", "enum", "oneOf",
		"minimum", "maximum", "minItems", "maxItems"},
	fields: map[string]*schemaDefault{"oneOf": {items: nullableFields("description")}},
}

// object is an object field whose default is each of its fields' own
// (fs, promptCapabilities): written out, or empty, or absent, all alike.
func object(fields map[string]*schemaDefault) *schemaDefault {
	return &schemaDefault{fields: fields, value: map[string]any{}}
}

// schemaDefaults are the schema's defaults in what the REL checks send,
// by method and member ("initialize params"); the answers of every method
// share "result", since an answer names no method and only initialize's
// has defaults.
var schemaDefaults = map[string]map[string]*schemaDefault{
	// InitializeRequest.clientCapabilities: ClientCapabilities.
	"initialize params": {
		"clientCapabilities": object(map[string]*schemaDefault{
			"fs":       object(map[string]*schemaDefault{"readTextFile": leaf(false), "writeTextFile": leaf(false)}),
			"terminal": leaf(false),
			"auth":     object(map[string]*schemaDefault{"terminal": leaf(false)}),
			// ElicitationCapabilities: a null form is no form, and
			// elicitation itself has no default.
			"elicitation": nullableFields("form"),
		}),
	},
	// InitializeResponse: agentCapabilities and authMethods.
	"result": {
		"agentCapabilities": object(map[string]*schemaDefault{
			"loadSession":         leaf(false),
			"promptCapabilities":  object(map[string]*schemaDefault{"image": leaf(false), "audio": leaf(false), "embeddedContext": leaf(false)}),
			"mcpCapabilities":     object(map[string]*schemaDefault{"http": leaf(false), "sse": leaf(false)}),
			"sessionCapabilities": leaf(map[string]any{}),
			"auth":                leaf(map[string]any{}),
		}),
		"authMethods": leaf([]any{}),
	},
	// ElicitationSessionScope.toolCallId; ElicitationFormMode.requestedSchema:
	// ElicitationSchema.
	"elicitation/create params": {
		"requestedSchema": {
			nullable: []string{"title", "description", "required"},
			fields:   map[string]*schemaDefault{"type": leaf("object"), "properties": {value: map[string]any{}, each: propertySchema}},
		},
	},
}

// nullableAt says which fields of the top of a member may be null or
// omitted alike.
var nullableAt = map[string][]string{"elicitation/create params": {"toolCallId"}}

// sameUpToDefaults reports whether a and b, the member ("params",
// "result" or "error") of a message of method ("" for an answer), are the
// same JSON value once each field at its schema default, and each null
// _meta, is left out of both: on every reading of a text that names a
// member twice (exactjson.Readings), as probe.SameValue compares.
func sameUpToDefaults(method, member string, a, b json.RawMessage) bool {
	if probe.SameValue(a, b) {
		return true
	}
	key := method + " " + member
	if method == "" {
		key = member
	}
	top := &schemaDefault{fields: schemaDefaults[key], nullable: nullableAt[key]}
	readingsA, _ := exactjson.Readings(a)
	readingsB, _ := exactjson.Readings(b)
	for _, ra := range readingsA {
		for _, rb := range readingsB {
			na, okA := withoutDefaults(ra, top)
			nb, okB := withoutDefaults(rb, top)
			if !okA || !okB || !probe.SameValue(na, nb) {
				return false
			}
		}
	}
	return true
}

// withoutDefaults is raw with what d says may be left out left out.
func withoutDefaults(raw json.RawMessage, d *schemaDefault) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	out, err := json.Marshal(dropDefaults(v, d))
	return out, err == nil
}

// dropDefaults is v with what d says may be left out left out: in an
// object, each field that holds its default (its own fields' defaults
// left out first) and each null field the schema lets be omitted, in an
// array what d says of each item; and every null _meta, at any depth.
func dropDefaults(v any, d *schemaDefault) any {
	if d == nil {
		d = &schemaDefault{}
	}
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = dropDefaults(e, d.items)
		}
		return out
	case map[string]any:
		out := maps.Clone(v)
		for k, fv := range out {
			if fv == nil && (k == "_meta" || slices.Contains(d.nullable, k)) {
				delete(out, k) // "Omitted and null are equivalent"
				continue
			}
			fd := d.fields[k]
			if fd == nil {
				fd = d.each
			}
			fv = dropDefaults(fv, fd)
			out[k] = fv
			if fd != nil && fd.value != nil && sameAny(fv, dropDefaults(fd.value, fd)) {
				delete(out, k)
			}
		}
		return out
	}
	return v
}

func sameAny(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && probe.SameValue(ja, jb)
}

// expectRelayed fails the spec unless got, a member of a message that
// crossed the relay, is want as REL-1 compares them (sameRelayed).
func expectRelayed(sentence string, got, want json.RawMessage) {
	GinkgoHelper()
	if !sameRelayed(got, want) {
		expectJSON(sentence, got, want)
	}
}

// sameRelayed reports whether got and want, a member of a message that
// crossed the relay, are the same JSON value up to the schema's defaults of
// whichever message it is (sameUpToDefaults): the checks that compare one
// member name no method.
func sameRelayed(got, want json.RawMessage) bool {
	if absent(got) || absent(want) {
		return absent(got) && absent(want)
	}
	for key := range schemaDefaults {
		method, member, ok := strings.Cut(key, " ")
		if !ok {
			method, member = "", key
		}
		if sameUpToDefaults(method, member, got, want) {
			return true
		}
	}
	return false
}

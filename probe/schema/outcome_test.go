package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/probe/schema"
)

// integerOutcomes holds, for each integer member of the outcome schema, a
// valid outcome with %s where its number goes, how to read it back, and
// the least number the schema allows there.
var integerOutcomes = map[string]struct {
	text  string
	read  func(probe.Outcome) *int
	least int
}{
	"index": {`{"acpconform":1,"outcome":"accepted","index":%s,"value":"preview"}`, func(o probe.Outcome) *int { return o.Index }, -1},
	"code":  {`{"acpconform":1,"outcome":"error","error":"request_error","code":%s,"message":"m"}`, func(o probe.Outcome) *int { return o.Code }, -probe.MaxInteger},
}

// TestEveryIntegerMemberIsCovered: the tables below cover every member
// the outcome schema types "integer".
func TestEveryIntegerMemberIsCovered(t *testing.T) {
	var doc struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	b, _ := probe.Schema(probe.SchemaOutcome)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var integers []string
	for name, p := range doc.Properties {
		if p["type"] == "integer" {
			integers = append(integers, name)
		}
	}
	slices.Sort(integers)
	if covered := slices.Sorted(maps.Keys(integerOutcomes)); !slices.Equal(integers, covered) {
		t.Errorf("the outcome schema's integer members are %q, the tests cover %q", integers, covered)
	}
}

// TestParseOutcomeReadsIntegersByValue: an integer member is the integer
// its number denotes, however it is written, as JSON Schema's "integer"
// has it; Python's json writes 0.0 for a float 0.
func TestParseOutcomeReadsIntegersByValue(t *testing.T) {
	for _, tc := range []struct {
		number string
		want   int
	}{
		{"0", 0}, {"0.0", 0}, {"0e5", 0}, {"-0", 0}, {"-0.0", 0}, {"0E-7", 0}, {"0.000e99999999999999999999", 0},
		{"1.0e0", 1}, {"10e-1", 1}, {"0.1e1", 1}, {"-1.0", -1}, {"-10e-1", -1},
		{"-32601.0", -32601}, {"-3.2601e4", -32601}, {"4242e0", 4242},
		{"9007199254740991", probe.MaxInteger}, {"-9.007199254740991e15", -probe.MaxInteger},
	} {
		for name, m := range integerOutcomes {
			if tc.want < m.least {
				continue
			}
			text := fmt.Sprintf(m.text, tc.number)
			o, err := schema.ParseOutcome(text)
			if err != nil || m.read(o) == nil || *m.read(o) != tc.want {
				t.Errorf("ParseOutcome(%s) = %+v, %v; want %s %d", text, o, err, name, tc.want)
			}
		}
	}
}

// TestParseOutcomeReadsTheVersionByValue: "acpconform", the integer 1 by
// the schema's const, is read by value too.
func TestParseOutcomeReadsTheVersionByValue(t *testing.T) {
	for _, version := range []string{"1", "1.0", "1.0e0", "10e-1", "0.1e1"} {
		if _, err := schema.ParseOutcome(`{"acpconform":` + version + `,"outcome":"declined"}`); err != nil {
			t.Errorf("ParseOutcome of version %s: %v", version, err)
		}
	}
	for _, version := range []string{"0e5", "2.0", "1.5", "1e1000001"} {
		_, err := schema.ParseOutcome(`{"acpconform":` + version + `,"outcome":"declined"}`)
		want := "at /acpconform: want 1, got " + version + " (schema: outcome.json#/properties/acpconform/const)"
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("ParseOutcome of version %s = %v, want %s", version, err, want)
		}
	}
}

// TestParseOutcomeRefusesIntegersItCannotRead: a number with a fraction,
// or an integer beyond ±2^53-1, is refused, naming the member and the
// number as written.
func TestParseOutcomeRefusesIntegersItCannotRead(t *testing.T) {
	for _, tc := range []struct {
		number, want string // want: %s is the member
	}{
		{"0.5", "at /%s: want integer, got number (0.5) (schema: outcome.json#/properties/%[1]s/type)"},
		{"-1.5e-1000000", "at /%s: want integer, got number (-1.5e-1000000) (schema: outcome.json#/properties/%[1]s/type)"},
		{"1e-99999999999999999999", "at /%s: want integer, got number (1e-99999999999999999999) (schema: outcome.json#/properties/%[1]s/type)"},
		{"9007199254740992", "at /%s: want at most 9007199254740991, got 9007199254740992 (schema: outcome.json#/properties/%[1]s/maximum)"},
		{"1e30", "at /%s: want at most 9007199254740991, got 1e30 (schema: outcome.json#/properties/%[1]s/maximum)"},
		{"1e1000001", "at /%s: want at most 9007199254740991, got 1e1000001 (schema: outcome.json#/properties/%[1]s/maximum)"},
		{"1e99999999999999999999", "at /%s: want at most 9007199254740991, got 1e99999999999999999999 (schema: outcome.json#/properties/%[1]s/maximum)"},
	} {
		for name, m := range integerOutcomes {
			text := fmt.Sprintf(m.text, tc.number)
			_, err := schema.ParseOutcome(text)
			want := "outcome does not match the probe contract's outcome schema: " + fmt.Sprintf(tc.want, name)
			var se *probe.SchemaError
			if err == nil || err.Error() != want || !errors.As(err, &se) {
				t.Errorf("ParseOutcome(%s) = %v\nwant %s", text, err, want)
			}
		}
	}
	// Below the minimum: code's is -2^53+1, index's -1.
	for text, want := range map[string]string{
		fmt.Sprintf(integerOutcomes["code"].text, "-1e400"):            "at /code: want at least -9007199254740991, got -1e400 (schema: outcome.json#/properties/code/minimum)",
		fmt.Sprintf(integerOutcomes["code"].text, "-9007199254740992"): "at /code: want at least -9007199254740991, got -9007199254740992 (schema: outcome.json#/properties/code/minimum)",
		fmt.Sprintf(integerOutcomes["index"].text, "-2.0"):             "at /index: want at least -1, got -2.0 (schema: outcome.json#/properties/index/minimum)",
		fmt.Sprintf(integerOutcomes["index"].text, "-1e400"):           "at /index: want at least -1, got -1e400 (schema: outcome.json#/properties/index/minimum)",
	} {
		if _, err := schema.ParseOutcome(text); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("ParseOutcome(%s) = %v\nwant %s", text, err, want)
		}
	}
}

// nested is a valid declined outcome with an unknown member, nesting
// depth levels in all.
func nested(depth int) string {
	return `{"acpconform":1,"outcome":"declined","detail":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
}

// TestParseOutcomeBoundsNesting: an outcome nests at most 10000 levels,
// as much as encoding/json reads; one deeper is refused saying so, at any
// depth, and never by exhausting the stack.
func TestParseOutcomeBoundsNesting(t *testing.T) {
	if o, err := schema.ParseOutcome(nested(probe.MaxDepth)); err != nil || o.Outcome != probe.OutcomeDeclined {
		t.Errorf("ParseOutcome of an outcome nested %d levels = %+v, %v", probe.MaxDepth, o, err)
	}
	for _, depth := range []int{probe.MaxDepth + 1, 100_000, 10_000_000} {
		text := nested(depth)
		if !probe.IsOutcome(text) {
			t.Errorf("IsOutcome of an outcome nested %d levels is false", depth)
		}
		_, err := schema.ParseOutcome(text)
		want := fmt.Sprintf("outcome nests %d levels deep, deeper than the 10000 acpconform reads", depth)
		if err == nil || err.Error() != want {
			t.Errorf("ParseOutcome of an outcome nested %d levels = %v, want %s", depth, err, want)
		}
	}
}

// BenchmarkParseOutcomeNested: what refusing an outcome nested too deep
// costs the harness, which reads it twice (IsOutcome, then ParseOutcome).
func BenchmarkParseOutcomeNested(b *testing.B) {
	for _, depth := range []int{100_000, 10_000_000} {
		text := nested(depth)
		b.Run(fmt.Sprint(depth), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := schema.ParseOutcome(text); !probe.IsOutcome(text) || err == nil {
					b.Fatal(err)
				}
			}
		})
	}
}

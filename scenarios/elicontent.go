package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// eliContent: what an agent's create_elicitation makes of an accepted
// form's content, keyword by keyword of the schema. Valid content is
// handed back unchanged, also at every inclusive bound and with integers
// judged by value (ELI-2, a MUST: refusing it is refusing the client's
// answer); content that breaks one keyword is reported invalid_response
// (ELI-3, a SHOULD: ACP says agents SHOULD validate again). Every check
// answers the one form of keywordsForm. A property the form does not
// declare is valid (contract revision 5), and no check here sends one.
func (e *env) eliContent() {
	e.it("inclusive-bounds-accepted", "hands back unchanged content whose every property sits at an inclusive bound", rules("ELI-2"), func(ctx SpecContext) {
		e.needOffered(ctx)
		e.expectHandedBack(ctx, atBounds, "sits at an inclusive bound of its property, which JSON Schema allows")
	})

	e.it("integer-by-value", "hands back unchanged integers written with a fraction or an exponent", rules("ELI-2"), func(ctx SpecContext) {
		e.needOffered(ctx)
		e.expectHandedBack(ctx, integerSpellings, "is an integer by value, as JSON Schema judges integers")
	})

	refusals := []any{expectsError, func(ctx SpecContext, content, why string) {
		e.needOffered(ctx)
		f := e.connect(ctx, formAndURLClient).answer(script.AcceptContent(json.RawMessage(content)))
		out := f.probe(ctx, keywordsForm())
		if outcomeIs(out, invalidResponse) != nil {
			check(wantsError())
			Fail(fmt.Sprintf("the agent reported %s for an accepted form whose %s, want error invalid_response: ACP says agents SHOULD validate again (advice, not a failure of conformance)",
				describeOutcome(out), why))
		}
	}}
	for _, r := range keywordRefusals {
		refusals = append(refusals, e.entry(r.text, slug(r.slug), rules("ELI-3"), r.content, r.why))
	}
	DescribeTable("refuses an accepted form whose content breaks one keyword of the schema:", refusals...)
}

// A refusal is content an ELI-3 check answers a form with, which breaks
// its schema: the entry's text and slug, the content, and why it breaks
// the schema, in words.
type refusal struct {
	text, slug, content, why string
}

// keywordRefusals are content of keywordsForm that breaks one keyword each.
var keywordRefusals = []refusal{
	{"a string that does not match its pattern", "pattern-unmatched",
		`{"code":"abc"}`, `"code" is "abc", which does not match its pattern "^[A-Z]{3}$"`},
	{"a relative reference for a URI", "not-a-uri",
		`{"site":"example.com/ada"}`, `"site" is "example.com/ada", a relative reference without a scheme, not of the format "uri" (RFC 3986)`},
	{"a date of a thirteenth month", "not-a-date",
		`{"born":"2026-13-04"}`, `"born" is "2026-13-04", of a month 13, not of the format "date" (RFC 3339 full-date)`},
	{"a date-time without its offset", "not-a-date-time",
		`{"meeting":"2026-12-04T10:30:00"}`, `"meeting" is "2026-12-04T10:30:00", without the offset RFC 3339 requires, not of the format "date-time"`},
	{"a number below its minimum", "below-minimum",
		`{"low":0}`, `"low" is 0, below its minimum 1`},
	{"a string longer than its maxLength", "above-max-length",
		`{"longName":"Adaline"}`, `"longName" is "Adaline", 7 characters, above its maxLength 5`},
	{"an array with fewer items than its minItems", "below-min-items",
		`{"fewTags":[]}`, `"fewTags" has no items, below its minItems 1`},
	{"an array with more items than its maxItems", "above-max-items",
		`{"manyTags":["go","ts","py"]}`, `"manyTags" has 3 items, above its maxItems 2`},
	{"a string for a number", "string-for-number",
		`{"highRatio":"0.5"}`, `"highRatio" is the string "0.5", not a number`},
}

// A ContentCase is content an agent's ELI check answers a form with, and
// whether the catalogue holds it valid (ELI-2: it must be handed back) or
// not (ELI-3: it should be refused).
type ContentCase struct {
	Name                     string
	RequestedSchema, Content json.RawMessage
	Valid                    bool
}

// ContentCases are the content of every form the agent's ELI checks
// answer, with the catalogue's verdict: the cases a judge of content
// (reference.ContentProblems, the kits' contentProblems) must answer as
// the catalogue does.
func ContentCases() []ContentCase {
	profile, keywords := profileForm().RequestedSchema, keywordsForm().RequestedSchema
	cases := []ContentCase{
		{"every property of its own type", profile, json.RawMessage(profileContent), true},
		{"every bounded property at a bound", keywords, json.RawMessage(contentOf(atBounds)), true},
		{"integers with a fraction or an exponent", keywords, json.RawMessage(contentOf(integerSpellings)), true},
	}
	for _, r := range profileRefusals {
		cases = append(cases, ContentCase{r.text, profile, json.RawMessage(r.content), false})
	}
	for _, r := range keywordRefusals {
		cases = append(cases, ContentCase{r.text, keywords, json.RawMessage(r.content), false})
	}
	return cases
}

// keywordsForm is a create_elicitation of a form with a property for each
// keyword of schema 1.21.0: bounds of every kind, each property of them
// twice (one to sit at its lower bound, one at its upper), a pattern,
// each format, and integers without bounds. Nothing is required, so
// that any one property is valid content alone.
func keywordsForm() probe.Request {
	return probe.Request{Acpconform: probe.Version, Op: probe.OpCreateElicitation, Mode: "form", Message: "Tell us the details",
		RequestedSchema: json.RawMessage(`{"type":"object","title":"Details","properties":{` +
			`"low":{"type":"integer","title":"Low","minimum":1,"maximum":10},` +
			`"high":{"type":"integer","title":"High","minimum":1,"maximum":10},` +
			`"lowRatio":{"type":"number","title":"Low ratio","minimum":-0.5,"maximum":0.5},` +
			`"highRatio":{"type":"number","title":"High ratio","minimum":-0.5,"maximum":0.5},` +
			`"shortName":{"type":"string","title":"Short name","minLength":2,"maxLength":5},` +
			`"longName":{"type":"string","title":"Long name","minLength":2,"maxLength":5},` +
			`"fewTags":{"type":"array","title":"Few tags","minItems":1,"maxItems":2,"items":{"type":"string","enum":["go","ts","py"]}},` +
			`"manyTags":{"type":"array","title":"Many tags","minItems":1,"maxItems":2,"items":{"type":"string","enum":["go","ts","py"]}},` +
			`"code":{"type":"string","title":"Code","pattern":"^[A-Z]{3}$"},` +
			`"email":{"type":"string","title":"Email","format":"email"},` +
			`"site":{"type":"string","title":"Website","format":"uri"},` +
			`"born":{"type":"string","title":"Birthday","format":"date"},` +
			`"meeting":{"type":"string","title":"Meeting","format":"date-time"},` +
			`"age":{"type":"integer","title":"Age"},` +
			`"year":{"type":"integer","title":"Year"}}}`)}
}

// valued is one property of keywordsForm's content: its name, its value
// as JSON, and the value in words, saying why it is valid.
type valued struct {
	name, value, what string
}

// atBounds sits every bounded property of keywordsForm at one of its
// inclusive bounds. The longest name is five code points and six UTF-16
// units: JSON Schema counts code points.
var atBounds = []valued{
	{"low", `1`, "1, at its minimum"},
	{"high", `10`, "10, at its maximum"},
	{"lowRatio", `-0.5`, "-0.5, at its minimum"},
	{"highRatio", `0.5`, "0.5, at its maximum"},
	{"shortName", `"Ad"`, `"Ad", at its minLength 2`},
	{"longName", `"Ada🧮!"`, `"Ada🧮!", at its maxLength 5 (5 code points, 6 UTF-16 units)`},
	{"fewTags", `["go"]`, `["go"], at its minItems 1`},
	{"manyTags", `["go","py"]`, `["go","py"], at its maxItems 2`},
}

// integerSpellings are integers of keywordsForm written as no int64
// decoder reads them.
var integerSpellings = []valued{
	{"age", `36.0`, "36.0, the integer 36"},
	{"year", `2.026e3`, "2.026e3, the integer 2026"},
}

// contentOf writes the properties as a content object, in their order.
func contentOf(props []valued) string {
	parts := make([]string, len(props))
	for i, p := range props {
		parts[i] = fmt.Sprintf("%q:%s", p.name, p.value)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// expectHandedBack answers keywordsForm with the valid content of props
// and fails the check unless the agent hands it back, accepted and
// unchanged as JSON values. When the agent refuses it as invalid, each
// property is answered again alone, in the same session, so that the
// failure names the ones it refuses; whose says what every property's
// value is.
func (e *env) expectHandedBack(ctx SpecContext, props []valued, whose string) {
	GinkgoHelper()
	content := contentOf(props)
	f := e.connect(ctx, formAndURLClient).answer(script.AcceptContent(json.RawMessage(content)))
	out := f.probe(ctx, keywordsForm())
	if out.Outcome == probe.OutcomeError && out.Error == probe.ErrorInvalidResponse {
		var refused []string
		for _, p := range props {
			f.answer(script.AcceptContent(json.RawMessage(contentOf([]valued{p}))))
			if alone := f.probe(ctx, keywordsForm()); alone.Outcome == probe.OutcomeError && alone.Error == probe.ErrorInvalidResponse {
				refused = append(refused, fmt.Sprintf("%q: %s", p.name, p.what))
			}
		}
		if len(refused) == 0 {
			refused = []string{"none (it refuses them only together)"}
		}
		Fail(fmt.Sprintf("the agent refused valid content as invalid_response: each property %s\nthe client's content: %s\nthe agent's message: %q\nanswered alone, it refuses:\n- %s",
			whose, content, out.Message, strings.Join(refused, "\n- ")))
	}
	assert(out.Outcome == probe.OutcomeAccepted, "the agent reported %s for valid content, each property of which %s, want accepted with the content as the client sent it\nthe client's content: %s",
		describeOutcome(out), whose, content)
	expectJSON("the agent handed back other content than the client sent (-want is the client's)", out.Content, json.RawMessage(content))
}

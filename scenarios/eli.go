package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// eliClient: what every client must do with any elicitation (ELI-4..8),
// beyond ask_choice's one form. The harness plays the agent and sends
// forms of every shape of ACP schema 1.21.0, URL elicitations,
// elicitation/complete and $/cancel_request, each with a scripted-user
// instruction (docs/probe.md §2). The ELI checks judge only what every
// client must do (valid answers, no refusal of a mode it advertised); how
// a valid answer differs from the instruction is CLI-5's, in one check of
// its own. A mode the client does not advertise is not applicable to it:
// its checks skip, saying so.
func (e *env) eliClient() {
	Describe("ELI: a client under test", func() {
		DescribeTable("answers forms of every shape validly:",
			func(ctx SpecContext, shapes []formShape) {
				e.needForm(ctx)
				steps := make([]script.Step, len(shapes))
				for i, s := range shapes {
					steps[i] = s.step(nil)
				}
				t := e.turn(ctx, steps...)
				t.expectAllValid(len(shapes))
			},
			e.entry("several fields of each type, required and optional", slug("multi-field"), rules("ELI-4"), shapesOf("multi-field", "optional-left-out")),
			e.entry("strings of each format, with length bounds and a pattern", slug("strings"), rules("ELI-4"), shapesOf("string-formats", "string-bounds")),
			e.entry("numbers and integers with bounds, and booleans", slug("numbers-and-booleans"), rules("ELI-4"), shapesOf("numbers", "booleans")),
			e.entry("single-selects by enum and by oneOf", slug("single-select"), rules("ELI-4"), shapesOf("enum", "one-of")),
			e.entry("multi-selects of untitled and titled items, with item bounds", slug("multi-select"), rules("ELI-4"), shapesOf("multi-select-untitled", "multi-select-titled")),
			e.entry("titles, descriptions and defaults, the defaults accepted", slug("defaults"), rules("ELI-4"), shapesOf("defaults")),
			e.entry("a decline and a cancel", slug("decline-and-cancel"), rules("ELI-4"), shapesOf("declined", "cancelled")),
		)

		e.it("every-shape-conforms", "answers forms of every shape with content the schema allows, and declines and cancels without content", rules("ELI-8"), func(ctx SpecContext) {
			e.needForm(ctx)
			steps := make([]script.Step, len(formShapes))
			for i, s := range formShapes {
				steps[i] = s.step(nil)
			}
			t := e.turn(ctx, steps...)
			t.expectConforming()
		})

		e.it("choice-declined-without-content", "declines and cancels a typed choice without content", rules("ELI-8"), func(ctx SpecContext) {
			e.needForm(ctx)
			t := e.turn(ctx, elicitStep(deployForm(), probe.User{Action: "decline"}, nil, nil), elicitStep(deployForm(), probe.User{Action: "cancel"}, nil, nil))
			t.expectConforming()
		})

		e.it("every-shape-as-instructed", "answers every form shape as its scripted user says", rules("CLI-5"), func(ctx SpecContext) {
			e.needTestMode()
			e.needForm(ctx)
			steps := make([]script.Step, len(formShapes))
			for i, s := range formShapes {
				steps[i] = s.step(obeyed())
			}
			t := e.turn(ctx, steps...)
			t.expectObeyed()
		})

		e.it("url-answered", "answers URL elicitations with accept or decline, as its user says", rules("ELI-5"), func(ctx SpecContext) {
			e.needURL(ctx)
			t := e.turn(ctx, urlStep("github-oauth-1", probe.User{Action: probe.ActionAccept}), urlStep("github-oauth-2", probe.User{Action: probe.ActionDecline}))
			t.expectAllValid(2)
		})

		DescribeTable("takes elicitation/complete without answering it, and answers the next request:",
			func(ctx SpecContext, steps []script.Step) {
				e.needURL(ctx)
				t := e.turn(ctx, steps...)
				t.expectAllValid(len(t.exchanges()))
				e.expectNoCrashAfterTurn(ctx, t, "elicitation/complete")
			},
			e.entry("for the id it accepted", slug("complete-known"), rules("ELI-5"), []script.Step{
				urlStep("login-1", probe.User{Action: probe.ActionAccept}), completeStep("login-1"), urlStep("login-2", probe.User{Action: probe.ActionDecline}),
			}),
			e.entry("for an id it never saw", slug("complete-unknown"), rules("ELI-5"), []script.Step{
				completeStep("never-sent-7"), urlStep("login-3", probe.User{Action: probe.ActionAccept}),
			}),
			e.entry("for an id already complete", slug("complete-repeated"), rules("ELI-5"), []script.Step{
				urlStep("login-4", probe.User{Action: probe.ActionAccept}), completeStep("login-4"), completeStep("login-4"), urlStep("login-5", probe.User{Action: probe.ActionAccept}),
			}),
		)

		e.it("unadvertised-url-refused", "refuses a URL elicitation it did not advertise with -32602", rules("ELI-6"), expectsError, func(ctx SpecContext) {
			if e.advertises(ctx, "url") {
				Skip("not applicable: the client advertises url elicitation")
			}
			t := e.turn(ctx, urlStep("not-advertised-1", probe.User{Action: probe.ActionAccept}))
			ex := t.only()
			assert(ex.Answered, "the client did not answer a URL elicitation it did not advertise: want JSON-RPC error -32602")
			assert(ex.Answer.Error != nil && ex.Answer.Error.Code == -32602,
				"the client, which did not advertise url elicitation, answered a URL elicitation with %s, want JSON-RPC error -32602 (a cancel or decline is reported, not a CLI-2 failure)", answerOf(ex))
		})

		e.it("cancel-ends-pending", "answers an elicitation the agent cancels", rules("ELI-7"), func(ctx SpecContext) {
			e.needForm(ctx)
			t := e.turn(ctx, cancelledStep())
			ex := t.only()
			assert(ex.Answered, "the client did not answer an elicitation/create within %s of the agent's $/cancel_request for it: a client that handles the cancel answers the request, with action cancel or JSON-RPC error -32800 (ACP makes cancellation optional: this is advice)", e.response)
			check(none("the client answered the cancelled elicitation with problems", withoutRule(ex.Problems, "ELI-8")))
		})

		e.it("wait-until-cancelled", "answers a request its scripted user waits on with cancel or -32800 once the agent cancels it", rules("CLI-5"), func(ctx SpecContext) {
			e.needTestMode()
			e.needForm(ctx)
			t := e.turn(ctx, cancelledStep())
			ex := t.only()
			if !ex.Answered || len(withoutRule(ex.Problems, "ELI-8")) > 0 {
				Skip(fmt.Sprintf("the client answered the cancelled request with %s: ELI-7/cancel-ends-pending reports it", answerOf(ex)))
			}
			cancelled := ex.Answer.Error != nil && ex.Answer.Error.Code == -32800
			if r, problem := agent.ReadAnswer(ex.Answer.Result); ex.Answer.Error == nil && problem == "" {
				cancelled = r.Action == "cancel"
			}
			assert(cancelled, "the client answered %s to an elicitation its scripted user waited on and the agent cancelled: want action cancel or JSON-RPC error -32800", answerOf(ex))
		})
	})
}

// expectAllValid fails the check unless each of n elicitation/create
// requests of the turn got one valid answer: none missing, none refused
// for a mode the client advertised, and nothing else wrong on the
// connection.
func (t clientTurn) expectAllValid(n int) {
	GinkgoHelper()
	ex := t.exchanges()
	assert(len(ex) == n, "the turn carried %d elicitation/create requests, want %d: the client's connection ended, or the turn did, before the rest", len(ex), n)
	check(clientProblems(withoutRule(t.a.Violations(), "ELI-8"), n))
	for i, x := range ex {
		assert(x.Answered, "the client did not answer elicitation/create #%d of %d", i+1, n)
	}
}

// cancelledStep is a form whose scripted user waits, and which the agent
// cancels with $/cancel_request once it is pending.
func cancelledStep() script.Step {
	step := formShapes[0].step(nil)
	step.Elicit.User = &script.User{Action: probe.ActionWait}
	step.Elicit.Cancel = true
	return step
}

// needURL skips a check of URL mode when the client does not advertise it.
func (e *env) needURL(ctx context.Context) {
	GinkgoHelper()
	if !e.advertises(ctx, "url") {
		Skip("not applicable: the client does not advertise url elicitation (elicitation.url), so no agent may send it a URL elicitation")
	}
}

// urlStep is a URL elicitation with a scripted user.
func urlStep(id string, user probe.User) script.Step {
	return script.Step{Elicit: &script.Elicit{
		Question:      "Please authorize access to your repositories.",
		URL:           "https://agent.example.com/connect?elicitationId=" + id,
		ElicitationID: id,
		User:          (*script.User)(&user),
	}}
}

// completeStep sends elicitation/complete for id.
func completeStep(id string) script.Step { return script.Step{Complete: &id} }

// formShape is one form of the ELI catalogue and its scripted user.
type formShape struct {
	name   string
	schema string // the requestedSchema
	user   probe.User
}

func (s formShape) step(expect *script.AnswerExpect) script.Step {
	user := s.user
	return script.Step{Elicit: &script.Elicit{
		Question: "Tell us about yourself (" + s.name + ")",
		Form:     script.JSON(s.schema),
		User:     (*script.User)(&user),
		Expect:   expect,
	}}
}

func acceptWith(content string) probe.User {
	return probe.User{Action: probe.ActionAccept, Content: json.RawMessage(content)}
}

// formShapes are the forms of every shape of schema 1.21.0, each with a
// valid answer.
var formShapes = []formShape{
	{"multi-field", `{"type":"object","title":"Profile","required":["name","age"],"properties":{
		"name":{"type":"string","title":"Name"},
		"age":{"type":"integer","title":"Age"},
		"height":{"type":"number","title":"Height (m)"},
		"subscribe":{"type":"boolean","title":"Subscribe"},
		"languages":{"type":"array","title":"Languages","items":{"type":"string","enum":["go","ts","py"]}}}}`,
		acceptWith(`{"name":"Ada Lovelace","age":36,"height":1.65,"subscribe":true,"languages":["go","py"]}`)},
	{"optional-left-out", `{"type":"object","required":["name"],"properties":{
		"name":{"type":"string","title":"Name"},
		"nickname":{"type":"string","title":"Nickname"},
		"age":{"type":"integer","title":"Age"}}}`,
		acceptWith(`{"name":"Ada"}`)},
	{"string-formats", `{"type":"object","required":["email","site","born","at"],"properties":{
		"email":{"type":"string","format":"email","title":"Email"},
		"site":{"type":"string","format":"uri","title":"Website"},
		"born":{"type":"string","format":"date","title":"Birthday"},
		"at":{"type":"string","format":"date-time","title":"Meeting"}}}`,
		acceptWith(`{"email":"ada@example.com","site":"https://example.com/ada","born":"1815-12-10","at":"2026-12-04T10:30:00Z"}`)},
	{"string-bounds", `{"type":"object","required":["handle"],"properties":{
		"handle":{"type":"string","title":"Handle","minLength":2,"maxLength":8,"pattern":"^[a-z]+$"},
		"motto":{"type":"string","title":"Motto","maxLength":40}}}`,
		acceptWith(`{"handle":"ada","motto":"Poetical science 🧮"}`)},
	{"numbers", `{"type":"object","required":["ratio","count"],"properties":{
		"ratio":{"type":"number","title":"Ratio","minimum":-1.5,"maximum":1.5},
		"count":{"type":"integer","title":"Count","minimum":1,"maximum":10},
		"offset":{"type":"integer","title":"Offset","minimum":-100}}}`,
		acceptWith(`{"ratio":-0.25,"count":10,"offset":-100}`)},
	{"booleans", `{"type":"object","required":["agree","notify"],"properties":{
		"agree":{"type":"boolean","title":"I agree"},
		"notify":{"type":"boolean","title":"Notify me"}}}`,
		acceptWith(`{"agree":true,"notify":false}`)},
	{"enum", `{"type":"object","required":["color"],"properties":{
		"color":{"type":"string","title":"Color","enum":["red","green","blue"]}}}`,
		acceptWith(`{"color":"green"}`)},
	{"one-of", `{"type":"object","required":["size"],"properties":{
		"size":{"type":"string","title":"Size","oneOf":[
			{"const":"s","title":"Small"},
			{"const":"m","title":"Medium","description":"Fits most"},
			{"const":"l","title":"Large"}]}}}`,
		acceptWith(`{"size":"m"}`)},
	{"multi-select-untitled", `{"type":"object","required":["tags"],"properties":{
		"tags":{"type":"array","title":"Tags","minItems":1,"maxItems":2,"items":{"type":"string","enum":["bug","feature","docs"]}}}}`,
		acceptWith(`{"tags":["bug","docs"]}`)},
	{"multi-select-titled", `{"type":"object","required":["langs"],"properties":{
		"langs":{"type":"array","title":"Languages","minItems":1,"items":{"anyOf":[
			{"const":"go","title":"Go"},
			{"const":"ts","title":"TypeScript","description":"Node and browsers"}]}}}}`,
		acceptWith(`{"langs":["ts"]}`)},
	{"defaults", `{"type":"object","title":"Settings","description":"Your editor settings","properties":{
		"theme":{"type":"string","title":"Theme","description":"Colour scheme","enum":["light","dark"],"default":"dark"},
		"tabs":{"type":"integer","title":"Tab width","description":"Columns","minimum":1,"maximum":16,"default":4},
		"zoom":{"type":"number","title":"Zoom","default":1.25},
		"wrap":{"type":"boolean","title":"Wrap lines","default":true},
		"panels":{"type":"array","title":"Panels","items":{"type":"string","enum":["files","git","search"]},"default":["files","git"]}}}`,
		acceptWith(`{"theme":"dark","tabs":4,"zoom":1.25,"wrap":true,"panels":["files","git"]}`)},
	{"declined", `{"type":"object","required":["name"],"properties":{"name":{"type":"string","title":"Name"}}}`,
		probe.User{Action: probe.ActionDecline}},
	{"cancelled", `{"type":"object","required":["name"],"properties":{"name":{"type":"string","title":"Name"}}}`,
		probe.User{Action: probe.ActionCancel}},
}

// shapesOf returns the named form shapes.
func shapesOf(names ...string) []formShape {
	var out []formShape
	for _, n := range names {
		for _, s := range formShapes {
			if s.name == n {
				out = append(out, s)
			}
		}
	}
	if len(out) != len(names) {
		panic(fmt.Sprintf("scenarios: shapesOf(%q): a name is not among formShapes", names))
	}
	return out
}

// advertises learns whether the client under test advertises the
// elicitation mode ("form" or "url"), from the capabilities read once per
// catalogue (advertisesForm).
func (e *env) advertises(ctx context.Context, mode string) bool {
	GinkgoHelper()
	e.advertisesForm(ctx)
	e.caps.Lock()
	defer e.caps.Unlock()
	return script.Advertises(e.clientCaps, mode)
}

// eliAgent: the agent's low-level create_elicitation (ELI-1..3), run by
// the probe request of op create_elicitation (docs/probe.md §1.3). Each
// check starts with needOffered: an agent need not offer the op.
func (e *env) eliAgent() {
	Describe("ELI: an agent's create_elicitation", func() {
		DescribeTable("sends a mode only to a client that advertised it, and nothing in its place:", expectsError,
			func(ctx SpecContext, caps string, req probe.Request) {
				e.needOffered(ctx)
				f := e.connectCaps(ctx, client.Config{Capabilities: json.RawMessage(caps)})
				if f == nil {
					return // malformed capabilities refused with -32602, as CAP-2 allows
				}
				Expect(f.probe(ctx, req)).To(BeOutcome(unsupported))
				f.expectNoRequest("a mode the client did not advertise is not sent, and no permission request goes in its place")
			},
			e.entry("a form to a client that advertised url only", slug("form-to-url-only"), rules("ELI-1"), `{"elicitation":{"url":{}}}`, profileForm()),
			e.entry("a URL to a client that advertised form only", slug("url-to-form-only"), rules("ELI-1"), `{"elicitation":{"form":{}}}`, signInURL()),
			e.entry("a URL to a client whose url is null", slug("url-null"), rules("ELI-1"), `{"elicitation":{"form":{},"url":null}}`, signInURL()),
			e.entry("a form to a client without elicitation", slug("form-to-none"), rules("ELI-1"), `{}`, profileForm()),
		)

		e.it("form-unchanged", "sends a multi-field form unchanged, scoped to its session, and hands back the typed content", rules("ELI-2"), func(ctx SpecContext) {
			e.needOffered(ctx)
			f := e.connect(ctx, formAndURLClient).answer(script.AcceptContent(json.RawMessage(profileContent)))
			req := profileForm()
			Expect(f.probe(ctx, req)).To(BeOutcome(probe.Outcome{Outcome: probe.OutcomeAccepted, Content: json.RawMessage(profileContent)}))
			params := f.params()
			expectEqual("the agent sent the sessionId %s, want the session's, %s", gjson.GetBytes(params, "sessionId").String(), f.session)
			expectEqual("the agent sent the mode %s, want %s", gjson.GetBytes(params, "mode").String(), "form")
			expectEqual("the agent sent the message %q, want %q", gjson.GetBytes(params, "message").String(), req.Message)
			sent := json.RawMessage(gjson.GetBytes(params, "requestedSchema").Raw)
			assert(probe.SameValue(sent, req.RequestedSchema), "the agent sent the requestedSchema %s, want the application's unchanged: %s", show(sent), show(req.RequestedSchema))
		})

		e.it("url-unchanged", "sends a URL elicitation unchanged, scoped to its session, and hands back the accept", rules("ELI-2"), func(ctx SpecContext) {
			e.needOffered(ctx)
			f := e.connect(ctx, formAndURLClient).answer(script.AcceptWithoutContent())
			req := signInURL()
			Expect(f.probe(ctx, req)).To(BeOutcome(probe.Outcome{Outcome: probe.OutcomeAccepted}))
			params := f.params()
			expectEqual("the agent sent the sessionId %s, want the session's, %s", gjson.GetBytes(params, "sessionId").String(), f.session)
			for name, want := range map[string]string{"mode": "url", "message": req.Message, "url": req.URL, "elicitationId": req.ElicitationID} {
				assert(gjson.GetBytes(params, name).String() == want, "the agent sent the %s %s, want %q", name, show(json.RawMessage(gjson.GetBytes(params, name).Raw)), want)
			}
			assert(!gjson.GetBytes(params, "requestedSchema").Exists(), "the agent sent a requestedSchema with a URL elicitation: %s", show(params))
		})

		DescribeTable("hands back a decline or cancel without content:",
			func(ctx SpecContext, answer script.Answer, want probe.Outcome) {
				e.needOffered(ctx)
				f := e.connect(ctx, formAndURLClient).answer(answer)
				// An outcome with content beside a decline or cancel breaks the
				// outcome schema, which f.probe checks.
				Expect(f.probe(ctx, profileForm())).To(BeOutcome(want))
			},
			e.entry("a decline that carried content", slug("decline-without-content"), rules("ELI-3"), script.Decline().WithContent(map[string]any{"name": "Ada"}), declined),
			e.entry("a cancel", slug("cancel"), rules("ELI-2"), script.Cancel(), cancelled),
		)

		refusals := []any{expectsError, func(ctx SpecContext, content string) {
			e.needOffered(ctx)
			f := e.connect(ctx, formAndURLClient).answer(script.AcceptContent(json.RawMessage(content)))
			Expect(f.probe(ctx, profileForm())).To(BeOutcome(invalidResponse))
		}}
		for _, r := range profileRefusals {
			refusals = append(refusals, e.entry(r.text, slug(r.slug), rules("ELI-3"), r.content))
		}
		DescribeTable("refuses an accepted form whose content breaks the schema:", refusals...)
		e.eliContent()
		e.eliAgentMore() // revision 5: every call, unknown actions, URLs as given, a cancelled turn (elimore.go)
	})
}

// formAndURLClient advertises both modes of elicitation.
var formAndURLClient = client.Config{Capabilities: json.RawMessage(`{"elicitation":{"form":{},"url":{}}}`)}

// profileContent answers profileForm, every value of its own type.
const profileContent = `{"name":"Ada Lovelace","age":36,"height":1.65,"subscribe":true,"plan":"pro","languages":["go","py"],"email":"ada@example.com"}`

// profileRefusals are content of profileForm that breaks its schema, one
// way each (ELI-3).
var profileRefusals = []refusal{
	{"a required property missing", "missing-required", `{"name":"Ada"}`, ""},
	{"a string for an integer", "string-for-integer", `{"name":"Ada","age":"36"}`, ""},
	{"an integer with a fraction", "fraction-for-integer", `{"name":"Ada","age":36.5}`, ""},
	{"a number beyond its maximum", "above-maximum", `{"name":"Ada","age":151}`, ""},
	{"a string shorter than its minLength", "below-min-length", `{"name":"","age":36}`, ""},
	{"a value outside its enum", "outside-enum", `{"name":"Ada","age":36,"plan":"gold"}`, ""},
	{"an item outside a multi-select", "outside-items", `{"name":"Ada","age":36,"languages":["cobol"]}`, ""},
	{"a string for a boolean", "string-for-boolean", `{"name":"Ada","age":36,"subscribe":"yes"}`, ""},
	{"an email of the wrong format", "wrong-format", `{"name":"Ada","age":36,"email":"ada"}`, ""},
	{"no content at all", "no-content", `null`, ""},
}

// profileForm is a create_elicitation of a multi-field form with a
// property of each type, bounds, an enum, a multi-select and a format.
func profileForm() probe.Request {
	return probe.Request{Acpconform: probe.Version, Op: probe.OpCreateElicitation, Mode: "form", Message: "  Tell us about yourself\n",
		RequestedSchema: json.RawMessage(`{"type":"object","title":"Profile","required":["name","age"],"properties":{` +
			`"name":{"type":"string","title":"Name","minLength":1,"maxLength":64},` +
			`"age":{"type":"integer","title":"Age","minimum":0,"maximum":150},` +
			`"height":{"type":"number","title":"Height (m)","minimum":0.5,"maximum":2.5,"default":1.7},` +
			`"subscribe":{"type":"boolean","title":"Subscribe","default":false},` +
			`"plan":{"type":"string","title":"Plan","oneOf":[{"const":"free","title":"Free"},{"const":"pro","title":"Pro","description":"Paid monthly"}]},` +
			`"languages":{"type":"array","title":"Languages","maxItems":3,"items":{"type":"string","enum":["go","ts","py"]}},` +
			`"email":{"type":"string","format":"email","title":"Email"}}}`)}
}

// signInURL is a create_elicitation of a URL.
func signInURL() probe.Request {
	return probe.Request{Acpconform: probe.Version, Op: probe.OpCreateElicitation, Mode: "url", Message: " Please authorize access to your repositories. ",
		URL: "https://agent.example.com/connect?elicitationId=github-oauth-001", ElicitationID: "github-oauth-001"}
}

// expectNoCrashAfterTurn fails the check when a client that acpconform
// started ends before its turn does, or crashes after it: a client's SDK
// may handle a notification (elicitation/complete) beside the requests
// that follow it, so a client that fails on one can answer them first and
// die later. An exit before the turn's end, with any status, is one the
// transcript shows before the agent's answer to session/prompt reached the
// client (endedBeforeTurn); after it, a crash in test mode is a death by a
// signal, or exit status 2, the Go runtime's for a panic, and any other
// status is CLI-5's to judge (a client in test mode exits 0), as is a
// client still running. A free user, which may stay after its turn, is
// judged only on an end that has come by then.
func (e *env) expectNoCrashAfterTurn(ctx context.Context, t clientTurn, what string) {
	GinkgoHelper()
	exited := t.link.Exited()
	switch {
	case exited == nil:
		return
	case e.freeUser:
		if !isClosed(exited) && !isClosed(t.a.Done()) {
			return
		}
	default:
		if _, ok := receive(ctx, e.startup, exited); !ok {
			return
		}
	}
	// The end of its output is in the transcript once the connection is done.
	if _, ok := receive(ctx, e.response, t.a.Done()); ok && endedBeforeTurn(t.a.Transcript().Entries()) {
		how := "closed its connection"
		if isClosed(exited) {
			how = t.link.ExitDescription()
		}
		Fail(fmt.Sprintf("the client %s before its turn ended, after %s: it must take the notification and go on, and any exit before the turn's end breaks ELI-5", how, what))
	}
	if how := t.link.ExitDescription(); !e.freeUser && (how == "exited with status 2" || strings.Contains(how, "signal")) {
		Fail(fmt.Sprintf("the client answered every request, then %s after its turn ended: it crashed on %s", how, what))
	}
}

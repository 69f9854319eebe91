package scenarios

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/probe"
)

// relChecks: what every relay must carry faithfully (REL-1..7). The
// harness plays both ends of the relay with the same request ids on both
// sides, so that a relay which renumbers must map them back.
func (e *env) relChecks() {
	Describe("REL: a relay under test", func() {
		e.it("ids-mapped-back", "answers each request with the id its requester used, though both sides use the same ids", rules("REL-1", "REL-3"), func(ctx SpecContext) {
			p := e.openRelay(ctx)
			prompt := p.prompt(ctx, idPrompt, p.session, "go")
			// The agent's ids 0, 1, 2 are the client's, and its 2 is in flight.
			for i := 0; i < 3; i++ {
				p.agent.send(ctx, request(i, "elicitation/create", relQuestion(p.session, fmt.Sprintf("Question %d?", i), 3)))
			}
			asked := p.client.awaitN(ctx, "the agent's 3 elicitation/create requests", 3, func(m relMsg) bool { return m.isRequest("elicitation/create") })
			for _, q := range asked {
				i := questionIndex(q)
				expectRelayed(fmt.Sprintf("the relay changed the params of the agent's elicitation/create id %d on their way to the client", i), q.Params,
					relQuestion(p.session, fmt.Sprintf("Question %d?", i), 3))
			}
			for k := len(asked) - 1; k >= 0; k-- {
				p.client.send(ctx, answer(asked[k].ID, accept(questionIndex(asked[k]))))
			}
			for i := 0; i < 3; i++ {
				got := p.agent.await(ctx, fmt.Sprintf("an answer to its elicitation/create id %d", i), func(m relMsg) bool { return m.answers(i) })
				expectRelayed(fmt.Sprintf("relay defect: the agent's elicitation/create id %d got another request's answer, or a changed one, with its id", i), got.Result, accept(i))
			}
			done := json.RawMessage(`{"stopReason":"end_turn","_meta":{"acpconform.dev/rel":"prompt"}}`)
			p.agent.send(ctx, answer(prompt.ID, done))
			got := p.client.await(ctx, "the answer to its session/prompt (id 2)", func(m relMsg) bool { return m.answers(idPrompt) })
			expectRelayed("the relay changed the agent's answer to session/prompt on its way to the client", got.Result, done)
		})

		e.it("answers-unchanged", "passes accept, decline, cancel and error answers to the agent unchanged", rules("REL-1"), func(ctx SpecContext) {
			p := e.openRelay(ctx)
			p.prompt(ctx, idPrompt, p.session, "go")
			answers := []struct {
				kind   string
				url    bool            // asked in URL mode, and completed with elicitation/complete after the answer
				result json.RawMessage // or
				error  json.RawMessage
			}{
				{kind: "accept", result: json.RawMessage(`{"action":"accept","content":{"choice":"choice_1"},"_meta":{"acpconform.dev/rel":{"n":1.5,"s":"café ✓"}}}`)},
				{kind: "decline", result: json.RawMessage(`{"action":"decline"}`)},
				{kind: "cancel", result: json.RawMessage(`{"action":"cancel"}`)},
				{kind: "error", error: json.RawMessage(`{"code":-32602,"message":"Invalid params: the form cannot be shown","data":{"reason":"no form","field":"choice"}}`)},
				// Relays carry URL mode like any message (contract, ELI): an
				// accept without content, then the agent's notification.
				{kind: "URL-mode accept", url: true, result: json.RawMessage(`{"action":"accept"}`)},
			}
			for i := range answers {
				a, question := answers[i], fmt.Sprintf("Question %d?", i)
				params := relQuestion(p.session, question, 2)
				if a.url {
					params = relURLQuestion(p.session, question)
				}
				p.agent.send(ctx, request(i+1, "elicitation/create", params))
				q := p.client.await(ctx, fmt.Sprintf("the agent's elicitation/create %q", question), func(m relMsg) bool {
					return m.isRequest("elicitation/create") && messageOf(m) == question
				})
				expectRelayed(fmt.Sprintf("relay defect: the relay changed the agent's elicitation/create %q on its way to the client", question), q.Params, params)
				if a.error != nil {
					p.client.send(ctx, errorAnswer(q.ID, a.error))
				} else {
					p.client.send(ctx, answer(q.ID, a.result))
				}
				got := p.agent.await(ctx, fmt.Sprintf("the client's %s answer to its elicitation/create id %d", a.kind, i+1), func(m relMsg) bool { return m.answers(i + 1) })
				if a.error != nil {
					assert(got.Result == nil, "relay defect: the client answered elicitation/create with an error, and the agent received a result %s instead", show(got.Result))
					expectRelayed("relay defect: the relay changed the client's error answer on its way to the agent", got.Error, a.error)
				} else {
					assert(got.Error == nil, "relay defect: the client answered elicitation/create with %s, and the agent received the error %s instead", a.kind, show(got.Error))
					expectRelayed(fmt.Sprintf("relay defect: the relay changed the client's %s answer on its way to the agent", a.kind), got.Result, a.result)
				}
				if a.url {
					complete := json.RawMessage(mustJSON(map[string]string{"elicitationId": relElicitationID}))
					p.agent.send(ctx, notification("elicitation/complete", complete))
					got := p.client.await(ctx, "the agent's elicitation/complete", func(m relMsg) bool { return m.isNotification("elicitation/complete") })
					expectRelayed("relay defect: the relay changed the agent's elicitation/complete on its way to the client", got.Params, complete)
				}
			}
		})

		e.it("cancel-request-translated", "passes the agent's $/cancel_request to the client with the id the client saw", rules("REL-2"), func(ctx SpecContext) {
			p := e.openRelay(ctx)
			p.prompt(ctx, idPrompt, p.session, "go")
			const agentID = 2 // the client's session/prompt is in flight with it too
			p.agent.send(ctx, request(agentID, "elicitation/create", relQuestion(p.session, "Deploy where?", 2)))
			q := p.client.await(ctx, "the agent's elicitation/create", func(m relMsg) bool { return m.isRequest("elicitation/create") })
			p.agent.send(ctx, notification("$/cancel_request", map[string]int{"requestId": agentID}))
			c := p.client.await(ctx, "the agent's $/cancel_request", func(m relMsg) bool { return m.isNotification("$/cancel_request") })
			if got := c.requestID(); !probe.SameValue(got, q.ID) {
				Fail(fmt.Sprintf("relay defect: the agent cancelled its elicitation/create (id %d on the agent's side), which the client received as id %s, "+
					"but the $/cancel_request the client received has requestId %s: the relay renumbered the request and not its cancellation, "+
					"so the client cannot tell which request ended\nthe $/cancel_request's params: %s", agentID, show(q.ID), show(got), show(c.Params)))
			}
			p.client.send(ctx, answer(q.ID, json.RawMessage(`{"action":"cancel"}`)))
			got := p.agent.await(ctx, "the client's answer to the cancelled elicitation/create", func(m relMsg) bool { return m.answers(agentID) })
			expectRelayed("the relay changed the client's cancel answer on its way to the agent", got.Result, json.RawMessage(`{"action":"cancel"}`))
		})

		e.it("client-cancel-request-translated", "passes the client's $/cancel_request to the agent with the id the agent saw", rules("REL-2"), func(ctx SpecContext) {
			p := e.openRelay(ctx)
			prompt := p.prompt(ctx, idPrompt, p.session, "go")
			// The agent is slow to answer the prompt, and the client cancels it.
			p.client.send(ctx, notification("$/cancel_request", map[string]int{"requestId": idPrompt}))
			c := p.agent.await(ctx, "the client's $/cancel_request", func(m relMsg) bool { return m.isNotification("$/cancel_request") })
			if got := c.requestID(); !probe.SameValue(got, prompt.ID) {
				Fail(fmt.Sprintf("relay defect: the client cancelled its session/prompt (id %d on the client's side), which the agent received as id %s, "+
					"but the $/cancel_request the agent received has requestId %s%s: the relay renumbered the request and not its cancellation, "+
					"so the agent cannot tell which request the client cancelled\nthe $/cancel_request's params: %s",
					idPrompt, show(prompt.ID), show(got), p.agent.naming(got), show(c.Params)))
			}
			cancelled := json.RawMessage(`{"code":-32800,"message":"Request cancelled","data":{"acpconform.dev/rel":"prompt"}}`)
			p.agent.send(ctx, errorAnswer(prompt.ID, cancelled))
			got := p.client.await(ctx, "the answer to its cancelled session/prompt (id 2)", func(m relMsg) bool { return m.answers(idPrompt) })
			// A relay may answer the cancelled request itself, as the agent would.
			if code, ok := errorCode(got.Error); !ok || code != -32800 {
				Fail(fmt.Sprintf("relay defect: the agent answered the cancelled session/prompt with the error %s, and the client received %s instead",
					show(cancelled), describeAnswer(got)))
			}
		})

		e.it("session-cancel-passes", "passes the client's session/cancel to the agent", rules("REL-2"), func(ctx SpecContext) {
			p := e.openRelay(ctx)
			prompt := p.prompt(ctx, idPrompt, p.session, "go")
			params := json.RawMessage(mustJSON(map[string]string{"sessionId": p.session}))
			p.client.send(ctx, notification("session/cancel", params))
			got := p.agent.await(ctx, "the client's session/cancel", func(m relMsg) bool { return m.isNotification("session/cancel") })
			expectRelayed("the relay changed session/cancel's params on their way to the agent", got.Params, params)
			cancelled := json.RawMessage(`{"stopReason":"cancelled"}`)
			p.agent.send(ctx, answer(prompt.ID, cancelled))
			turn := p.client.await(ctx, "the answer to its session/prompt (id 2)", func(m relMsg) bool { return m.answers(idPrompt) })
			expectRelayed("the relay changed the agent's answer to the cancelled session/prompt", turn.Result, cancelled)
		})

		e.it("concurrent-both-ways", "answers requests in flight both ways at once, several for one session, answered out of order, each to its sender", rules("REL-3", "REL-1"), func(ctx SpecContext) {
			p, initReq := e.throughRelayRaw(ctx, relCaps)
			p.agent.send(ctx, answer(initReq.ID, relInitResult))
			p.client.await(ctx, "the answer to its initialize (id 0)", func(m relMsg) bool { return m.answers(idInitialize) })

			// Two session/new in flight, answered in the other order.
			cwd := map[int]string{1: "/rel/a", 2: "/rel/b"}
			for _, id := range []int{1, 2} {
				p.client.send(ctx, request(id, "session/new", map[string]any{"cwd": cwd[id], "mcpServers": []any{}}))
			}
			news := p.agent.awaitN(ctx, "the client's 2 session/new requests", 2, func(m relMsg) bool { return m.isRequest("session/new") })
			for k := len(news) - 1; k >= 0; k-- {
				p.agent.send(ctx, answer(news[k].ID, map[string]string{"sessionId": "session" + strings.ReplaceAll(cwdOf(news[k]), "/", "-")}))
			}
			for _, id := range []int{1, 2} {
				got := p.client.await(ctx, fmt.Sprintf("the answer to its session/new id %d", id), func(m relMsg) bool { return m.answers(id) })
				expectRelayed(fmt.Sprintf("relay defect: the client's session/new id %d (cwd %s) got the answer meant for another request", id, cwd[id]),
					got.Result, json.RawMessage(mustJSON(map[string]string{"sessionId": "session" + strings.ReplaceAll(cwd[id], "/", "-")})))
			}
			a, b := "session-rel-a", "session-rel-b"

			// Two prompts in flight (ids 3, 4), and four elicitations
			// (ids 1..4, three for one session) the other way.
			promptA, promptB := p.prompt(ctx, 3, a, "go a"), p.prompt(ctx, 4, b, "go b")
			questions := []struct {
				id      int
				session string
			}{{1, a}, {2, a}, {3, a}, {4, b}}
			for i, q := range questions {
				p.agent.send(ctx, request(q.id, "elicitation/create", relQuestion(q.session, fmt.Sprintf("Question %d?", i), len(questions))))
			}
			asked := p.client.awaitN(ctx, "the agent's 4 elicitation/create requests", 4, func(m relMsg) bool { return m.isRequest("elicitation/create") })
			for _, k := range []int{3, 0, 2, 1} { // out of order
				p.client.send(ctx, answer(asked[k].ID, accept(questionIndex(asked[k]))))
			}
			for i, q := range questions {
				got := p.agent.await(ctx, fmt.Sprintf("an answer to its elicitation/create id %d", q.id), func(m relMsg) bool { return m.answers(q.id) })
				expectRelayed(fmt.Sprintf("relay defect: the agent's elicitation/create id %d (%q, session %s) got another request's answer, or a changed one",
					q.id, fmt.Sprintf("Question %d?", i), q.session), got.Result, accept(i))
			}
			doneFor := func(s string) json.RawMessage {
				return json.RawMessage(mustJSON(map[string]any{"stopReason": "end_turn", "_meta": map[string]string{"acpconform.dev/rel": s}}))
			}
			p.agent.send(ctx, answer(promptB.ID, doneFor(b)))
			p.agent.send(ctx, answer(promptA.ID, doneFor(a)))
			for id, s := range map[int]string{3: a, 4: b} {
				got := p.client.await(ctx, fmt.Sprintf("the answer to its session/prompt id %d", id), func(m relMsg) bool { return m.answers(id) })
				expectRelayed(fmt.Sprintf("relay defect: the client's session/prompt id %d (session %s) got the answer meant for another request", id, s), got.Result, doneFor(s))
			}
		})

		e.it("updates-in-order", "passes session/update notifications in order, before the response sent after them", rules("REL-4"), func(ctx SpecContext) {
			p := e.openRelay(ctx)
			prompt := p.prompt(ctx, idPrompt, p.session, "go")
			var want []string
			for i := 0; i < 20; i++ {
				want = append(want, fmt.Sprintf("part %d", i))
				p.agent.send(ctx, notification("session/update", chunk(p.session, want[i])))
			}
			p.agent.send(ctx, answer(prompt.ID, map[string]string{"stopReason": "end_turn"}))
			p.client.await(ctx, "the answer to its session/prompt (id 2)", func(m relMsg) bool { return m.answers(idPrompt) })
			var before []string
			for _, m := range p.client.received() {
				if m.answers(idPrompt) {
					break
				}
				if m.isNotification("session/update") {
					before = append(before, chunkText(m))
				}
			}
			check(same("relay defect: the session/update notifications the client received before the answer to its session/prompt are not the agent's, "+
				"in the order it sent them before that answer", before, want))
		})

		e.it("capabilities-unchanged", "passes the client's initialize capabilities to the agent unchanged, elicitation.url and _meta included", rules("REL-5"), func(ctx SpecContext) {
			p, _ := e.throughRelayRaw(ctx, relCaps)
			check(p.capabilities)
		})

		e.it("client-gone-closes-agent", "closes its connection to the agent promptly when the client goes away", rules("REL-6"), func(ctx SpecContext) {
			p := e.pendingElicitation(ctx)
			p.client.conn.Close()
			e.expectClosed(ctx, p.agent, "the client went away (its connection to the relay closed)")
		})

		e.it("agent-gone-closes-client", "closes its connection to the client promptly when the agent goes away", rules("REL-6"), func(ctx SpecContext) {
			p := e.pendingElicitation(ctx)
			p.agent.conn.Close()
			e.expectClosed(ctx, p.client, "the agent went away (its connection to the relay closed)")
		})

		e.it("near-1mib-both-ways", "passes a message of nearly 1 MiB unchanged both ways", rules("REL-7"), func(ctx SpecContext) {
			p := e.openRelay(ctx)
			params := sized(nearMiB, func(text string) json.RawMessage { return promptParams(p.session, text) }, request(idPrompt, "session/prompt", nil))
			p.client.send(ctx, request(idPrompt, "session/prompt", params))
			got := p.agent.await(ctx, "the client's session/prompt of nearly 1 MiB", func(m relMsg) bool { return m.isRequest("session/prompt") || m.Bad != "" })
			expectWhole(got, "session/prompt", params, p.agent)
			update := sized(nearMiB, func(text string) json.RawMessage { return chunk(p.session, text) }, notification("session/update", nil))
			p.agent.send(ctx, notification("session/update", update))
			got = p.client.await(ctx, "the agent's session/update of nearly 1 MiB", func(m relMsg) bool { return m.isNotification("session/update") || m.Bad != "" })
			expectWhole(got, "session/update", update, p.client)
		})

		e.it("over-1mib-to-agent", "passes messages of nearly and over 1 MiB to the agent whole, or refuses them with an error or a close, never a piece of one",
			rules("REL-7", "REL-1"), func(ctx SpecContext) {
				p := e.openRelay(ctx)
				for i, size := range []int{nearMiB, overMiB} {
					id := idPrompt + i
					params := sized(size, func(text string) json.RawMessage { return promptParams(p.session, text) }, request(id, "session/prompt", nil))
					closed := e.sendWholeOrRefused(ctx, p.client, p.agent, request(id, "session/prompt", params), "session/prompt", params,
						func(m relMsg) bool { return m.answers(id) && len(m.Error) > 0 })
					if closed { // refused: nothing more can cross
						return
					}
				}
			})

		e.it("over-1mib-to-client", "passes messages of nearly and over 1 MiB to the client whole, or refuses them with an error or a close, never a piece of one",
			rules("REL-7", "REL-1"), func(ctx SpecContext) {
				p := e.openRelay(ctx)
				for _, size := range []int{nearMiB, overMiB} {
					update := sized(size, func(text string) json.RawMessage { return chunk(p.session, text) }, notification("session/update", nil))
					closed := e.sendWholeOrRefused(ctx, p.agent, p.client, notification("session/update", update), "session/update", update,
						func(m relMsg) bool { return m.Method == "" && len(m.Error) > 0 })
					if closed {
						return
					}
				}
			})

		e.it("numbers-exact-both-ways", "passes integers beyond 2^53 and long decimals by exact value both ways, in requests, notifications and answers",
			rules("REL-1"), func(ctx SpecContext) {
				p := e.openRelay(ctx)
				// Each message crosses; the end says which changed, and how
				// the first did.
				var changed []string
				var first error
				compare := func(what string, got, want json.RawMessage) {
					if sameRelayed(got, want) {
						return
					}
					if err := sameJSON(what, got, want); err != nil {
						changed = append(changed, what)
						first = cmp.Or(first, err)
					}
				}
				prompt := withNumbers(promptParams(p.session, "go"))
				p.client.send(ctx, request(idPrompt, "session/prompt", prompt))
				req := p.agent.await(ctx, "the client's session/prompt", func(m relMsg) bool { return m.isRequest("session/prompt") })
				compare("the client's session/prompt (a request), on its way to the agent", req.Params, prompt)
				cancel := withNumbers(json.RawMessage(mustJSON(map[string]string{"sessionId": p.session})))
				p.client.send(ctx, notification("session/cancel", cancel))
				got := p.agent.await(ctx, "the client's session/cancel", func(m relMsg) bool { return m.isNotification("session/cancel") })
				compare("the client's session/cancel (a notification), on its way to the agent", got.Params, cancel)

				update, question := withNumbers(chunk(p.session, "numbers")), withNumbers(relQuestion(p.session, "Which number?", 2))
				p.agent.send(ctx, notification("session/update", update))
				p.agent.send(ctx, request(1, "elicitation/create", question))
				q := p.client.await(ctx, "the agent's elicitation/create", func(m relMsg) bool {
					return m.isRequest("elicitation/create") && messageOf(m) == "Which number?"
				})
				compare("the agent's elicitation/create (a request), on its way to the client", q.Params, question)

				accepted := withNumbers(accept(1))
				p.client.send(ctx, answer(q.ID, accepted))
				got = p.agent.await(ctx, "the client's answer to its elicitation/create id 1", func(m relMsg) bool { return m.answers(1) })
				compare("the client's answer to elicitation/create, on its way to the agent", got.Result, accepted)
				done := withNumbers(json.RawMessage(`{"stopReason":"cancelled"}`))
				p.agent.send(ctx, answer(req.ID, done))
				got = p.client.await(ctx, "the answer to its session/prompt (id 2)", func(m relMsg) bool { return m.answers(idPrompt) })
				compare("the agent's answer to session/prompt, on its way to the client", got.Result, done)
				// Last, so that a relay that holds updates back (REL-4's
				// defect) has let it go by now.
				got = p.client.await(ctx, "the agent's session/update", func(m relMsg) bool { return m.isNotification("session/update") && chunkText(m) == "numbers" })
				compare("the agent's session/update (a notification), on its way to the client", got.Params, update)
				if len(changed) > 0 {
					Fail(fmt.Sprintf("relay defect: the relay changed numbers in %d of the 6 messages that crossed it, where REL-1 compares numbers by exact value "+
						"(a relay that reads them as float64, as JavaScript's JSON.parse does, loses the digits of integers beyond 2^53 and of long decimals):\n- %s\nthe first: %v",
						len(changed), strings.Join(changed, "\n- "), first))
				}
			})

		e.it("text-survives-both-ways", "passes every Unicode code point unchanged both ways, astral ones and characters cut by any read boundary included",
			rules("REL-1"), func(ctx SpecContext) {
				p := e.openRelay(ctx)
				p.client.send(ctx, request(idPrompt, "session/prompt", promptParams(p.session, unicodeText)))
				req := p.agent.await(ctx, "the client's session/prompt", func(m relMsg) bool { return m.isRequest("session/prompt") || m.Bad != "" })
				check(sameText("the client's session/prompt, on its way to the agent", promptText(req), unicodeText))
				p.agent.send(ctx, notification("session/update", chunk(p.session, unicodeText)))
				got := p.client.await(ctx, "the agent's session/update", func(m relMsg) bool { return m.isNotification("session/update") || m.Bad != "" })
				check(sameText("the agent's session/update, on its way to the client", chunkText(got), unicodeText))
				p.agent.send(ctx, request(1, "elicitation/create", relQuestion(p.session, astralQuestion, 2)))
				q := p.client.await(ctx, "the agent's elicitation/create", func(m relMsg) bool { return m.isRequest("elicitation/create") || m.Bad != "" })
				check(sameText("the agent's elicitation/create's message, on its way to the client", messageOf(q), astralQuestion))
			})
	})
}

// astralQuestion holds characters beyond U+FFFF, each four bytes of
// UTF-8 and a surrogate pair in UTF-16: emoji, a mathematical letter, the
// last code point.
const astralQuestion = "Deploy 🚀 to 𝔭𝔯𝔬𝔡? 😀👍🏽 \U0010FFFD end"

// unicodeText is about 300 KiB of characters of 2, 3 and 4 bytes of UTF-8
// (é, €, 😀: 9 bytes a round), so that wherever a relay's reads of 4, 8,
// 16, 32 or 64 KiB end in the stream, some end falls inside a character:
// 2^k bytes leave the rounds' starts at residues that no three in a row
// keep on a character's start.
var unicodeText = strings.Repeat("é€😀", 300<<10/9)

// sameText fails unless text, what a message carried across the relay,
// is want, code point for code point (REL-1), and says how it changed.
func sameText(what, text, want string) error {
	if d := textDiff(text, want); d != "" {
		return fmt.Errorf("relay defect: %s arrived changed: %s (REL-1: every code point survives, whatever the read or frame boundaries)", what, d)
	}
	return nil
}

// textDiff says how text differs from want, "" when it does not: where
// the first changed character is, what it was and what came in its place
// (U+FFFD for a character decoded in pieces, or one beyond U+FFFF that
// could not be held).
func textDiff(text, want string) string {
	if text == want {
		return ""
	}
	got, sent := []rune(text), []rune(want)
	i := 0
	for i < len(got) && i < len(sent) && got[i] == sent[i] {
		i++
	}
	switch {
	case i == len(sent):
		return fmt.Sprintf("%d characters more than the %d sent", len(got)-len(sent), len(sent))
	case i == len(got):
		return fmt.Sprintf("%d of the %d characters sent", len(got), len(sent))
	}
	hint := ""
	if got[i] == '\uFFFD' {
		hint = ", the replacement character: the bytes of one character were decoded in pieces (at a read boundary), or a character beyond U+FFFF could not be held"
	}
	return fmt.Sprintf("its character %d of %d, %U, came as %U%s", i+1, len(sent), sent[i], got[i], hint)
}

// errorCode is the code of a JSON-RPC error object, read as ACP's SDKs
// read it ("Code" is none); ok is false when it has no integer code.
func errorCode(raw json.RawMessage) (code int, ok bool) {
	var e struct {
		Code *int `json:"code"`
	}
	if exactjson.Unmarshal(raw, &e) != nil || e.Code == nil {
		return 0, false
	}
	return *e.Code, true
}

// cwdOf is a session/new's params.cwd.
func cwdOf(m relMsg) string {
	var p struct {
		Cwd string `json:"cwd"`
	}
	_ = exactjson.Unmarshal(m.Params, &p)
	return p.Cwd
}

// promptText is the text of a session/prompt's first text block.
func promptText(m relMsg) string {
	var p struct {
		Prompt []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	_ = exactjson.Unmarshal(m.Params, &p)
	if len(p.Prompt) == 0 {
		return ""
	}
	return p.Prompt[0].Text
}

// questionIndex is i of an elicitation asking "Question <i>?".
func questionIndex(m relMsg) int {
	var i int
	if _, err := fmt.Sscanf(messageOf(m), "Question %d?", &i); err != nil {
		Fail(fmt.Sprintf("the client received an elicitation/create whose message is %q, none the agent sent", messageOf(m)))
	}
	return i
}

// pendingElicitation opens a session and a prompt turn in which the
// agent's elicitation/create waits for the client's answer.
func (e *env) pendingElicitation(ctx context.Context) *relPair {
	GinkgoHelper()
	p := e.openRelay(ctx)
	p.prompt(ctx, idPrompt, p.session, "go")
	p.agent.send(ctx, request(1, "elicitation/create", relQuestion(p.session, "Deploy where?", 2)))
	p.client.await(ctx, "the agent's elicitation/create", func(m relMsg) bool { return m.isRequest("elicitation/create") })
	return p
}

// expectClosed fails unless the relay ends other's connection within the
// bound of promptly of what happened.
func (e *env) expectClosed(ctx context.Context, other *relEnd, what string) {
	GinkgoHelper()
	if _, ok := receive(ctx, e.promptly, other.done); !ok {
		Fail(fmt.Sprintf("relay defect: %s while the agent's elicitation/create was pending, and the relay kept its connection to the %s "+
			"open for more than %s: the %s waits for what can no longer come", what, other.side, e.promptly, other.side))
	}
}

// The sizes REL-7 sends: nearly its 1 MiB, with room for a relay that
// writes JSON a little longer than it came; and beyond it.
const (
	nearMiB = 1<<20 - 1<<10
	overMiB = 1<<20 + 64<<10
)

// sized returns the params that build(text) builds with text long enough
// for the message shell, sent with them, to be size bytes.
func sized(size int, build func(text string) json.RawMessage, shell any) json.RawMessage {
	base := len(mustJSON(shell)) - len("null") + len(build(""))
	return build(filler(size - base))
}

// expectWhole fails unless got is the method's message with params: not a
// piece of it, not a changed copy.
func expectWhole(got relMsg, method string, params json.RawMessage, at *relEnd) {
	GinkgoHelper()
	if got.Bad != "" {
		var pieces []string
		for _, m := range at.received() {
			if m.Bad != "" {
				pieces = append(pieces, fmt.Sprint(m.Size))
			}
		}
		Fail(fmt.Sprintf("relay defect: the %s received, instead of the %s of %d bytes, %s of %s bytes that %s no JSON: the relay truncated or split it",
			at.side, method, len(params), plural(len(pieces), "a frame", "frames"), strings.Join(pieces, ", "), plural(len(pieces), "is", "are")))
	}
	if !probe.SameValue(got.Params, params) {
		Fail(fmt.Sprintf("relay defect: the %s received a %s whose params are %d bytes, not the %d bytes sent: the relay changed a message of about 1 MiB, or sent one of its own",
			at.side, method, len(got.Params), len(params)))
	}
}

// sendWholeOrRefused has from send msg, whose method and params are given,
// and fails unless the relay passes it on to to whole, or refuses it: an
// error answer to from (refusal says which), or a closed connection, with
// no piece of it sent on (REL-1; REL-7 allows the refusal). It reports
// whether a connection closed, after which nothing more can be sent. A
// message beyond the harness's own limit (--max-frame) counts as passed
// (the harness closes the connection): it was not cut below it.
func (e *env) sendWholeOrRefused(ctx context.Context, from, to *relEnd, msg any, method string, params json.RawMessage, refusal func(relMsg) bool) (closed bool) {
	GinkgoHelper()
	seenTo, seenFrom := len(to.received()), len(from.received())
	// A relay may refuse it by closing the sender's connection before it
	// is all written.
	if err := from.trySend(ctx, msg); errors.Is(err, context.DeadlineExceeded) {
		Fail(err.Error())
	}
	wait := e.wait(ctx)
	for {
		from.mu.Lock()
		fromMore := from.more
		from.mu.Unlock()
		to.mu.Lock()
		toMore := to.more
		to.mu.Unlock()
		for _, m := range to.next(&seenTo) {
			if m.Bad != "" || m.Method == method {
				expectWhole(m, method, params, to)
				return false
			}
		}
		for _, m := range from.next(&seenFrom) {
			if refusal(m) {
				return false
			}
		}
		for _, x := range []*relEnd{from, to} {
			select {
			case <-x.done:
				return true
			default:
			}
		}
		select {
		case <-fromMore:
		case <-toMore:
		case <-wait.Done():
			Fail(slowRelay(from.side, method, len(params), e.response))
		}
	}
}

// slowRelay is the failure of a message of size bytes that from sent and
// that nothing followed within bound: only the time decides it, so it says
// so and names the bound, and calls the relay slow, not broken (one that
// drops a message without a word looks the same, and a loaded machine can
// make a correct relay this slow).
func slowRelay(from, method string, size int, bound time.Duration) string {
	return fmt.Sprintf("slow: no answer within %s (--response-timeout): the %s sent a %s of %d bytes, and in that time the relay neither passed it on "+
		"nor refused it with an error or a close. Only the time tells this apart from a relay that drops it without a word: "+
		"run it again with a larger --response-timeout to tell which", bound, from, method, size)
}

// relNumbers are numbers a relay must carry by exact value (REL-1):
// integers beyond 2^53 and beyond 64 bits, decimals with more digits than
// a float64 holds, exponents beyond one; and 1.0 and 1e2, which it may
// write as 1 and 100.
var relNumbers = json.RawMessage(`{"beyond2to53":9007199254740993,"negative":-9007199254740993,"beyond64bits":123456789012345678901234567890,` +
	`"longDecimal":0.1000000000000000055511151231257827,"beyondFloat":1e400,"belowFloat":-2.5e-400,` +
	`"inAList":[9007199254740993,0.1000000000000000055511151231257827,1.0,1e2],"one":1.0,"hundred":1e2}`)

// withNumbers is params, an object, with relNumbers in its _meta.
func withNumbers(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		panic(fmt.Sprintf("scenarios: withNumbers of %s: %v", params, err))
	}
	p["_meta"] = json.RawMessage(mustJSON(map[string]json.RawMessage{"acpconform.dev/rel": relNumbers}))
	return json.RawMessage(mustJSON(p))
}

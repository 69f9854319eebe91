package scenarios

import (
	"context"
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reference"
)

// fb: fallbacks (FB-1..6).
func (e *env) fb() {
	Describe("FB: fallbacks", func() {
		DescribeTable("never run when the client supports form, whatever it then answers",
			func(ctx SpecContext, answer script.Answer, want probe.Outcome) {
				f := e.connect(ctx, formClient).answer(answer)
				Expect(f.probe(ctx, withFallback(deploy(), acceptedFallback("preview"), 0))).To(BeOutcome(want))
				f.expectSent(1, "the client supports form, so the request goes to it")
			},
			e.entry("a decline", rules("FB-1"), script.Decline(), declined),
			e.entry("a cancel", rules("FB-1"), script.Cancel(), cancelled),
			e.entry("an invalid answer", rules("FB-1"), script.AcceptChoice("choice_9"), invalidResponse),
			e.entry("an unknown action", rules("FB-1"), script.WithAction("_defer"), invalidResponse),
			e.entry("a JSON-RPC error", rules("FB-1", "RTE-2"), script.Fail(-32603, "Internal error", map[string]string{"why": "busy"}), requestError(-32603, map[string]string{"why": "busy"})),
		)

		e.it("answers-after-waiting", "may answer after waiting", rules("FB-2"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			Expect(f.probe(ctx, withFallback(deploy(), declinedFallback, 10))).To(BeOutcome(declined))
		})

		e.it("blocking-ends-with-cancel", "may block, and then ends with the caller's context", fresh, rules("FB-2", "RTE-7"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			turn := f.mc.Prompt(ctx, mustJSON(withFallback(deploy(), declinedFallback, 3_600_000)))
			By("cancelling the prompt turn while the fallback waits an hour")
			// Nothing on the wire says the turn has begun, and a cancel that
			// arrives first cancels nothing: cancel until the turn ends.
			ended := retryUntil(ctx, e.response, turn.Done(), func() { _ = f.mc.Cancel(ctx) })
			assert(ended, "the agent did not end the prompt turn within %s of session/cancel while its fallback waited", e.response)
			f.expectCancelled(ctx, turn, "its fallback waited")
		})

		e.it("blocking-honours-context", "may block, and honours its context", rules("FB-2"), inProcess, expectsError, func(ctx SpecContext) {
			e.needInProcess()
			s, _ := e.goSession(ctx, bareClient)
			started := make(chan struct{})
			askCtx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				_, err := reference.AskChoice(askCtx, s, "Pick", []reference.Choice[string]{{Value: "a", Label: "A"}},
					reference.WithFallback(func(ctx context.Context) (reference.Result[string], error) {
						close(started)
						<-ctx.Done()
						return reference.Result[string]{}, ctx.Err()
					}))
				done <- err
			}()
			_, ok := receive(ctx, e.response, started)
			assert(ok, "AskChoice did not run the fallback within %s", e.response)
			cancel()
			err, ok := receive(ctx, e.response, done)
			assert(ok, "AskChoice did not return within %s of the cancel of its context, while its fallback waited", e.response)
			expectError("AskChoice returned %s once its context was cancelled, want %s", err, context.Canceled)
		})

		DescribeTable("returns a fallback's decline or cancel unchanged",
			func(ctx SpecContext, fallback probe.Fallback, want probe.Outcome) {
				f := e.connect(ctx, bareClient)
				Expect(f.probe(ctx, withFallback(deploy(), fallback, 0))).To(BeOutcome(want))
			},
			e.entry("declined", rules("FB-3"), declinedFallback, declined),
			e.entry("cancelled", rules("FB-3"), cancelledFallback, cancelled),
		)

		DescribeTable("accepts only an offered value, and returns the offered value itself",
			func(ctx SpecContext, value any, want probe.Outcome) {
				f := e.connect(ctx, bareClient)
				req := ask("Pick", choice("a", "A"), choice(map[string]any{"env": "prod", "replicas": 3}, "B"), choice(nil, "Nothing"))
				Expect(f.probe(ctx, withFallback(req, acceptedFallback(value), 0))).To(BeOutcome(want))
			},
			e.entry("an offered string", rules("FB-4"), "a", accepted(0, "a")),
			e.entry("an offered object, keys in another order", rules("FB-4"), map[string]any{"replicas": 3.0, "env": "prod"}, accepted(1, map[string]any{"env": "prod", "replicas": 3})),
			e.entry("offered null", rules("FB-4", "RES-3"), nil, accepted(2, nil)),
			e.entry("a value not offered", rules("FB-4"), "c", invalidFallback),
			e.entry("a label instead of a value", rules("FB-4"), "A", invalidFallback),
		)

		e.it("error-unchanged", "propagates a fallback's error unchanged", rules("FB-5"), expectsError, func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			want := failedWith(probe.ErrorFallback)
			want.Message = "the policy says no"
			Expect(f.probe(ctx, withFallback(deploy(), errorFallback, 0))).To(BeOutcome(want))
		})

		e.it("panicking-comparison-skipped", "skips a choice whose comparison panics, and goes on, never panicking itself", rules("FB-6"), inProcess, expectsError, func(ctx SpecContext) {
			e.needInProcess()
			s, _ := e.goSession(ctx, bareClient)
			offered := []reference.Choice[any]{
				{Value: []int{1}, Label: "A slice: == panics"},
				{Value: map[string]int{"a": 1}, Label: "A map: == panics"},
				{Value: "plain", Label: "A string"},
			}
			fallback := func(v any) reference.Option[any] {
				return reference.WithFallback(func(context.Context) (reference.Result[any], error) { return reference.Accept(v), nil })
			}
			// A panic is the subject's failure, said as one.
			ask := func(v any) (res reference.Result[any], err error) {
				defer func() {
					if r := recover(); r != nil {
						Fail(fmt.Sprintf("AskChoice panicked comparing the fallback's value %s with the offered values: %v", show(v), r))
					}
				}()
				return reference.AskChoice(ctx, s, "Pick", offered, fallback(v))
			}
			res, err := ask("plain")
			must("AskChoice", err)
			expectEqual("AskChoice returned the value %s, want the offered %s past the choices whose comparison panics", res.Value(), "plain")
			_, err = ask([]int{1})
			expectError("AskChoice returned %s for an uncomparable fallback value, want %s: uncomparable values never match by default", err, reference.ErrInvalidFallback)
		})

		e.it("zero-result-refused", "refuses a fallback that returns the zero Result, which is no outcome", rules("RES-3", "FB-4"), inProcess, expectsError, func(ctx SpecContext) {
			e.needInProcess()
			s, _ := e.goSession(ctx, bareClient)
			res, err := reference.AskChoice(ctx, s, "Pick", []reference.Choice[string]{{Value: "a", Label: "A"}},
				reference.WithFallback(func(context.Context) (reference.Result[string], error) { return reference.Result[string]{}, nil }))
			expectError("AskChoice returned %s for a fallback's zero Result, want %s", err, reference.ErrInvalidFallback)
			assert(!res.Status().Valid(), "AskChoice returned the status %q for a fallback's zero Result, which is no outcome", res.Status())
		})

		// Equality is JSON's, exactly (docs/probe.md §1): true is not 1,
		// 1.0 is 1, and integers past 2^53 are not rounded to a float64.
		DescribeTable("matches by JSON value, exactly: each offered value matches only itself",
			func(ctx SpecContext, m valueMatch) {
				f := e.connect(ctx, bareClient)
				Expect(f.probe(ctx, withFallback(m.request(), acceptedFallback(json.RawMessage(m.value)), 0))).To(BeOutcome(m.want()))
			},
			e.entry("true among 1, true and \"1\"", slug("true-is-not-one"), rules("FB-6", "FB-4"), valueMatch{oneTrueString, "true", 1}),
			e.entry("\"1\" among 1, true and \"1\"", slug("string-one-is-not-one"), rules("FB-6", "FB-4"), valueMatch{oneTrueString, `"1"`, 2}),
			e.entry("1 among true, \"1\" and 1", slug("one-is-not-true-or-string"), rules("FB-6", "FB-4"), valueMatch{[]string{"true", `"1"`, "1"}, "1", 2}),
			e.entry("false among null, 0 and false", slug("false-is-not-null-or-zero"), rules("FB-6", "FB-4"), valueMatch{[]string{"null", "0", "false"}, "false", 2}),
			e.entry("1.0 for an offered 1", slug("one-point-zero-is-one"), rules("FB-6", "FB-4"), valueMatch{[]string{`"1"`, "true", "1"}, "1.0", 2}),
			e.entry("1e0 for an offered 1", slug("one-e-zero-is-one"), rules("FB-6", "FB-4"), valueMatch{[]string{`"1"`, "1"}, "1e0", 1}),
			e.entry("10e-1 for an offered 1", slug("ten-e-minus-one-is-one"), rules("FB-6", "FB-4"), valueMatch{[]string{`"1"`, "1"}, "10e-1", 1}),
			e.entry("1 for an offered 1.0", slug("one-is-offered-one-point-zero"), rules("FB-6", "FB-4"), valueMatch{[]string{`"1"`, "1.0"}, "1", 1}),
			e.entry("2^53 beside 2^53+1", slug("two-pow-53-is-not-plus-one"), rules("FB-6", "FB-4"), valueMatch{pastFloat, "9007199254740992", 1}),
			e.entry("2^53+1 beside 2^53", slug("two-pow-53-plus-one-is-not-two-pow-53"), rules("FB-6", "FB-4"), valueMatch{[]string{"9007199254740992", "9007199254740993"}, "9007199254740993", 1}),
			e.entry("2^53 beside 2^53+1, inside objects", slug("two-pow-53-in-objects"), rules("FB-6", "FB-4"),
				valueMatch{[]string{`{"n":9007199254740993}`, `{"n":9007199254740992}`}, `{"n":9007199254740992}`, 1}),
		)

		e.it("first-match-wins", "matches in order: the first equal offered value wins", rules("FB-6"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			req := ask("Pick", choice("x", "First x"), choice("x", "Second x"), choice("y", "Y"))
			Expect(f.probe(ctx, withFallback(req, acceptedFallback("x"), 0))).To(BeOutcome(accepted(0, "x")))
		})
	})
}

// valueMatch is a fallback's value and the offered values, as JSON texts
// kept as they are spelt, with the index the value must match.
type valueMatch struct {
	offered []string
	value   string
	index   int
}

// Offered values that only a loose equality confuses.
var (
	oneTrueString = []string{"1", "true", `"1"`}
	pastFloat     = []string{"9007199254740993", "9007199254740992"} // one float64 apart: 2^53+1 rounds to 2^53
)

func (m valueMatch) request() probe.Request {
	choices := make([]probe.Choice, len(m.offered))
	for i, v := range m.offered {
		choices[i] = choice(json.RawMessage(v), fmt.Sprintf("Choice %d", i))
	}
	return ask("Pick", choices...)
}

// want is the acceptance of the matched choice, with its offered value.
func (m valueMatch) want() probe.Outcome {
	return accepted(m.index, json.RawMessage(m.offered[m.index]))
}

package scenarios

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/probe"
)

// dep: the deprecated plain-value fallback (DEP-1..3).
func (e *env) dep() {
	Describe("DEP: the deprecated plain-value fallback", func() {
		warned := []string{probe.WarningPlainValue}
		withWarning := func(o probe.Outcome) probe.Outcome { o.Warnings = warned; return o }

		e.it("works-and-warns-once", "still works, and warns exactly once", fresh, rules("DEP-1"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			Expect(f.probe(ctx, withFallback(deploy(), plainFallback("production"), 0))).To(BeOutcome(withWarning(accepted(1, "production"))))
		})

		e.it("warns-once-each-call", "warns once for each call, however many calls a process makes", fresh, rules("DEP-1"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			for range 3 { // one connection, one process: warnings kept per process would pile up
				Expect(f.probe(ctx, withFallback(deploy(), plainFallback("production"), 0))).To(BeOutcome(withWarning(accepted(1, "production"))))
			}
		})

		e.it("warns-once-when-refused", "warns once also when the value is then refused", fresh, rules("DEP-1", "DEP-2"), expectsError, func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			Expect(f.probe(ctx, withFallback(deploy(), plainFallback("staging"), 0))).To(BeOutcome(withWarning(invalidFallback)))
		})

		e.it("only-plain-value-warns", "is the only fallback that warns", fresh, rules("DEP-1"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			o := accepted(1, "production")
			o.Warnings = noWarnings
			Expect(f.probe(ctx, withFallback(deploy(), acceptedFallback("production"), 0))).To(BeOutcome(o))
		})

		e.it("equal-value-returns-offered", "returns the offered value for an equal plain value", rules("DEP-2"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			req := ask("Pick", choice(map[string]any{"n": 1}, "One"), choice(map[string]any{"n": 2}, "Two"))
			Expect(f.probe(ctx, withFallback(req, plainFallback(map[string]any{"n": 2.0}), 0))).To(BeOutcome(withWarning(accepted(1, map[string]any{"n": 2}))))
		})

		e.it("offered-null-is-a-value", "takes null as a real value when it was offered", rules("DEP-3", "RES-3"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			req := ask("Pick", choice("a", "A"), choice(nil, "Nothing"))
			Expect(f.probe(ctx, withFallback(req, plainFallback(nil), 0))).To(BeOutcome(withWarning(accepted(1, nil))))
		})

		DescribeTable("matches a plain value by JSON value, exactly, as an accepted one",
			func(ctx SpecContext, m valueMatch) {
				f := e.connect(ctx, bareClient)
				Expect(f.probe(ctx, withFallback(m.request(), plainFallback(json.RawMessage(m.value)), 0))).To(BeOutcome(withWarning(m.want())))
			},
			e.entry("true among 1, true and \"1\"", slug("true-is-not-one"), rules("DEP-2", "FB-6"), valueMatch{oneTrueString, "true", 1}),
			e.entry("1.0 for an offered 1", slug("one-point-zero-is-one"), rules("DEP-2", "FB-6"), valueMatch{[]string{`"1"`, "true", "1"}, "1.0", 2}),
			e.entry("2^53 beside 2^53+1", slug("two-pow-53-is-not-plus-one"), rules("DEP-2", "FB-6"), valueMatch{pastFloat, "9007199254740992", 1}),
			e.entry("null among false, 0, \"\" and null", slug("null-is-not-false-zero-or-empty"), rules("DEP-3", "DEP-2"), valueMatch{[]string{"false", "0", `""`, "null"}, "null", 3}),
		)

		e.it("null-not-offered-refused", "refuses null when it was not offered, never reading it as a decline", rules("DEP-3"), expectsError, func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			Expect(f.probe(ctx, withFallback(deploy(), plainFallback(nil), 0))).To(BeOutcome(withWarning(invalidFallback)))
		})
	})
}

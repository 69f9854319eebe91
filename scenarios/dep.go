package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/probe"
)

// dep: the deprecated plain-value fallback (DEP-1..3).
func (e *env) dep() {
	Describe("DEP: the deprecated plain-value fallback", func() {
		warned := []string{probe.WarningPlainValue}
		withWarning := func(o probe.Outcome) probe.Outcome { o.Warnings = warned; return o }

		e.it("works-and-warns-once", "still works, and warns exactly once", rules("DEP-1"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			Expect(f.probe(ctx, withFallback(deploy(), plainFallback("production"), 0))).To(BeOutcome(withWarning(accepted(1, "production"))))
		})

		e.it("warns-once-when-refused", "warns once also when the value is then refused", rules("DEP-1", "DEP-2"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			Expect(f.probe(ctx, withFallback(deploy(), plainFallback("staging"), 0))).To(BeOutcome(withWarning(invalidFallback)))
		})

		e.it("only-plain-value-warns", "is the only fallback that warns", rules("DEP-1"), func(ctx SpecContext) {
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

		e.it("null-not-offered-refused", "refuses null when it was not offered, never reading it as a decline", rules("DEP-3"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			Expect(f.probe(ctx, withFallback(deploy(), plainFallback(nil), 0))).To(BeOutcome(withWarning(invalidFallback)))
		})
	})
}

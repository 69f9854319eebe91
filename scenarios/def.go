package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// def: the default (DEF-3, DEF-4; DEF-1 and DEF-2 sit with VAL and SCH).
func (e *env) def() {
	Describe("DEF: the default", func() {
		e.it("never-repairs-accept", "never repairs an accept without a valid token", rules("DEF-3", "TOK-2"), expectsError, func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.AcceptWithoutContent())
			Expect(f.probe(ctx, deploy())).To(BeOutcome(invalidResponse))
		})

		DescribeTable("never turns a decline, a cancel or an error into an acceptance",
			func(ctx SpecContext, cfg client.Config, answers []script.Answer, req probe.Request, want probe.Outcome) {
				f := e.connect(ctx, cfg).answer(answers...)
				Expect(f.probe(ctx, req)).To(BeOutcome(want))
			},
			e.entry("a decline", rules("DEF-4", "RES-1"), formClient, []script.Answer{script.Decline()}, deploy(), declined),
			e.entry("a cancel", rules("DEF-4", "RES-1"), formClient, []script.Answer{script.Cancel()}, deploy(), cancelled),
			e.entry("a JSON-RPC error", rules("DEF-4", "RTE-2"), formClient, []script.Answer{script.Fail(-32603, "Internal error", nil)}, deploy(), requestError(-32603, nil)),
			e.entry("a fallback's decline", rules("DEF-4", "FB-3"), bareClient, nil, withFallback(deploy(), declinedFallback, 0), declined),
			e.entry("a fallback's cancel", rules("DEF-4", "FB-3"), bareClient, nil, withFallback(deploy(), cancelledFallback, 0), cancelled),
			e.entry("a fallback's error", rules("DEF-4", "FB-5"), bareClient, nil, withFallback(deploy(), errorFallback, 0), failedWith(probe.ErrorFallback)),
			e.entry("no fallback at all", rules("DEF-4", "CAP-3"), bareClient, nil, deploy(), unsupported),
		)
	})
}

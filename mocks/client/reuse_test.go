package client_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

var _ = Describe("A mock client whose connection the next check reuses", func() {
	It("after Reset, sees only what the next check did, in a session of its own", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.FormElicitation})
		c.Append(script.Elicitation{Answer: script.Accept(0)})
		start(ctx, overPipe, c)
		first := c.SessionID()
		_, _, err := c.Probe(ctx, deploy)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Elicitations()).To(HaveLen(1))
		Expect(c.Reusable()).To(BeTrue())
		held := c.Held()

		c.Reset()
		Expect(c.Elicitations()).To(BeEmpty())
		Expect(c.Texts()).To(BeEmpty())
		Expect(c.Received()).To(BeEmpty())
		Expect(c.Held()).To(BeNumerically("<", held), "what it forgot is released")
		session, err := c.NewSession(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(session).NotTo(Equal(first))
		c.Append(script.Elicitation{Answer: script.Decline()})
		got, _, err := c.Probe(ctx, deploy)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Outcome).To(Equal(probe.OutcomeDeclined), "the new script, not the old")
		Expect(c.Elicitations()).To(HaveLen(1))
	})

	DescribeTable("is not reusable once an answer was withheld",
		func(ctx SpecContext, answer script.Answer) {
			c := client.New(client.Config{Capabilities: client.FormElicitation})
			c.Append(script.Elicitation{Answer: answer})
			start(ctx, overPipe, c)
			turn := c.Prompt(ctx, mustMarshal(deploy))
			Eventually(ctx, func() int { return len(c.Elicitations()) }).Should(Equal(1))
			Expect(c.Cancel(ctx)).To(Succeed())
			_, _ = turn.Wait(ctx)
			Expect(c.Reusable()).To(BeFalse())
		},
		Entry("never answered", within, script.Never()),
		Entry("answered to a wrong id", within, script.Accept(0).ToWrongID()),
	)

	It("is not reusable while its prompt turn is in flight", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.NoElicitation})
		start(ctx, overPipe, c)
		slow := deploy
		slow.Fallback, slow.FallbackDelayMs = &probe.Fallback{Kind: probe.FallbackDeclined}, 3_600_000
		turn := c.Prompt(ctx, mustMarshal(slow))
		Eventually(ctx, c.Transcript().String).Should(ContainSubstring(`"method":"session/prompt"`))
		Consistently(c.Reusable, "20ms").Should(BeFalse(), "session/prompt waits for its answer")
		Expect(c.Cancel(ctx)).To(Succeed())
		Expect(turn.Wait(ctx)).To(Equal("cancelled"))
		Eventually(ctx, c.Reusable).Should(BeTrue())
	})

	It("is not reusable while a request waits for its answer, nor once closed", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.FormElicitation})
		release := make(chan struct{})
		c.Append(script.Elicitation{Answer: script.Accept(0).When(release)})
		start(ctx, overPipe, c)
		turn := c.Prompt(ctx, mustMarshal(deploy))
		Eventually(ctx, func() int { return len(c.Elicitations()) }).Should(Equal(1))
		Expect(c.Reusable()).To(BeFalse(), "the prompt and the answer are in flight")
		close(release)
		Expect(turn.Wait(ctx)).To(Equal("end_turn"))
		Eventually(ctx, c.Reusable).Should(BeTrue())
		Expect(c.Close()).To(Succeed())
		Expect(c.Reusable()).To(BeFalse())
	})
})

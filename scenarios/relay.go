package scenarios

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// relayChecks: a relay under test (RTE-5, REM-3). The harness serves a
// mock agent where the relay connects, and plays the client on its stdio.
func (e *env) relayChecks() {
	Describe("RTE: a relay under test", func() {
		e.it("passes-capability", "passes the client's elicitation capability on to the agent", rules("RTE-5"), func(ctx SpecContext) {
			mc, a := e.throughRelay(ctx, formClient)
			Expect(mc.Initialize(e.wait(ctx))).To(Succeed(), "initialize through the relay")
			Expect(advertisesFormIn(a.Capabilities())).To(BeTrue(),
				"relay defect: the agent sees clientCapabilities %s, without the client's elicitation.form: the relay rebuilt "+
					"the client's capabilities without it, so every ask_choice behind it takes the unsupported path", a.Capabilities())
		})

		e.it("relays-elicitation-and-answer", "relays elicitation/create to the client, and the answer back unchanged", rules("RTE-5", "REM-3"), func(ctx SpecContext) {
			user := probe.User{Action: "accept", Pick: 1}
			mc, a := e.throughRelay(ctx, formClient, elicitStep(deployForm(), user, nil, nil))
			mc.Append(script.Elicitation{Answer: script.Accept(1)})
			Expect(mc.Initialize(e.wait(ctx))).To(Succeed(), "initialize through the relay")
			_, err := mc.NewSession(e.wait(ctx))
			Expect(err).NotTo(HaveOccurred(), "session/new through the relay")
			_, err = mc.Prompt(ctx, "go").Wait(e.wait(ctx))
			Expect(err).NotTo(HaveOccurred(), "the prompt turn through the relay")
			ex := a.Exchanges()
			Expect(ex).To(HaveLen(1))
			if answer := ex[0].Answer; answer.Error != nil && answer.Error.Code == -32601 {
				Fail("the relay answered elicitation/create with -32601 itself: its client-facing connection has not " +
					"opted into the unstable elicitation route (for acpconform mirror and ACP Kit's mirror: --unstable-protocol)")
			}
			Expect(ex[0].Answer.Result).To(MatchJSON(`{"action":"accept","content":{"choice":"choice_1"}}`), "the client's answer, as the agent got it")
			got := mc.Elicitations()
			Expect(got).To(HaveLen(1), "the request reached the client")
			Expect(got[0].Request.Params).To(MatchJSON(ex[0].Params), "the request, as the client got it")
		})
	})
}

// throughRelay starts the relay under test with a mock client on its stdio
// and a mock agent, playing steps, where it connects upstream.
func (e *env) throughRelay(ctx context.Context, cfg client.Config, steps ...script.Step) (*client.Client, *agent.Agent) {
	GinkgoHelper()
	link, err := e.subject.Connect(ctx)
	Expect(err).NotTo(HaveOccurred(), "start %s", e.subject.Name())
	mc := client.New(cfg)
	mc.Connect(link.Conn)
	a := agent.New(agent.Config{Timeout: e.response})
	a.Append(steps...)
	connected := make(chan error, 1)
	go func() {
		up, err := link.Upstream(ctx)
		if err == nil {
			a.Connect(up)
		}
		connected <- err
	}()
	DeferCleanup(func(ctx context.Context) {
		mc.Close()
		link.Close()
		transcript := "client side:\n" + mc.Transcript().String()
		if err := <-connected; err == nil {
			a.Close()
			transcript += "agent side:\n" + a.Transcript().String()
		}
		keepEvidence(link, func() string { return transcript })
	})
	DeferCleanup(func() { // runs first, while both sides are open
		Expect(mc.Violations()).To(BeEmpty(), "what the relay sent its client that no ACP peer may")
	})
	return mc, a
}

// advertisesFormIn reads elicitation.form in clientCapabilities.
func advertisesFormIn(caps json.RawMessage) bool {
	var c struct {
		Elicitation *struct {
			Form json.RawMessage `json:"form"`
		} `json:"elicitation"`
	}
	return json.Unmarshal(caps, &c) == nil && c.Elicitation != nil && c.Elicitation.Form != nil && string(c.Elicitation.Form) != "null"
}

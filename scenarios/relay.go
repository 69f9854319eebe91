package scenarios

import (
	"context"
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

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
			mc, a := e.throughRelay(ctx, formAndURLClient)
			e.mustStart("initialize through the relay", mc.Initialize(e.startWait(ctx)))
			caps := a.Capabilities()
			assert(script.AdvertisesForm(caps),
				"relay defect: the agent sees the clientCapabilities %s, without the client's elicitation.form: the relay rebuilt "+
					"the client's capabilities without it, so every ask_choice behind it takes the unsupported path", show(caps))
			// A relay that knows only form mode keeps form and drops url:
			// relays carry URL mode like any message (contract, ELI).
			assert(script.Advertises(caps, "url"),
				"relay defect: the agent sees the clientCapabilities %s, without the client's elicitation.url: the relay rebuilt "+
					"the client's capabilities without it, so no URL-mode elicitation behind it reaches the client (ELI-1)", show(caps))
		})

		e.it("relays-elicitation-and-answer", "relays elicitation/create to the client, and the answer back unchanged", rules("RTE-5", "REM-3"), func(ctx SpecContext) {
			user := probe.User{Action: "accept", Pick: 1}
			mc, a := e.throughRelay(ctx, formClient, elicitStep(deployForm(), user, nil, nil))
			mc.Append(script.Elicitation{Answer: script.Accept(1)})
			e.mustStart("initialize through the relay", mc.Initialize(e.startWait(ctx)))
			_, err := mc.NewSession(e.waitHops(ctx, 2))
			must("session/new through the relay", err)
			// The prompt, the elicitation, its answer and the turn's end
			// each cross the relay.
			_, err = mc.Prompt(ctx, "go").Wait(e.waitHops(ctx, 4))
			must("the prompt turn through the relay", err)
			ex := a.Exchanges()
			assert(len(ex) == 1, "the agent behind the relay sent %d elicitation/create requests, want 1", len(ex))
			if answer := ex[0].Answer; answer.Error != nil && answer.Error.Code == -32601 {
				Fail("the relay answered elicitation/create with -32601 itself: its client-facing connection has not " +
					"opted into the unstable elicitation route (for acpconform mirror and ACP Kit's mirror: --unstable-protocol)")
			}
			answer := ex[0].Answer.Result
			if ex[0].Answer.Error != nil {
				Fail(fmt.Sprintf("the relay answered the agent's elicitation/create with an error (%v), want the client's answer", ex[0].Answer.Error))
			}
			expectRelayed("the relay changed the client's answer on its way to the agent", answer, json.RawMessage(`{"action":"accept","content":{"choice":"choice_1"}}`))
			got := mc.Elicitations()
			assert(len(got) == 1, "the relay passed %d elicitation/create requests to the client, want the agent's one", len(got))
			expectRelayed("the relay changed the agent's elicitation/create on its way to the client", got[0].Request.Params, ex[0].Params)
		})
	})
}

// throughRelay starts the relay under test with a mock client on its stdio
// and a mock agent, playing steps, where it connects upstream.
func (e *env) throughRelay(ctx context.Context, cfg client.Config, steps ...script.Step) (*client.Client, *agent.Agent) {
	GinkgoHelper()
	link := e.connectSubject(ctx, "starting "+e.subject.Name())
	mc := client.New(cfg)
	mc.Connect(link.Conn)
	// The agent's wait for an answer spans two crossings of the relay.
	a := agent.New(agent.Config{Timeout: 2 * e.response})
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
		e.keepEvidence(link, func() string { return transcript })
	})
	DeferCleanup(func() { // runs first, while both sides are open
		expectNone("the relay sent its client what no ACP peer may", mc.Violations())
	})
	return mc, a
}

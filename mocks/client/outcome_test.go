package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
)

// sayingAgent plays an agent on conn that answers initialize and
// session/new, and answers every prompt with the agent messages says,
// then end_turn.
func sayingAgent(ctx context.Context, conn *wire.StreamConn, says ...string) {
	go func() {
		defer GinkgoRecover()
		for {
			frame, err := conn.ReadFrame(ctx)
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			Expect(json.Unmarshal(frame, &m)).To(Succeed())
			var result any
			switch m.Method {
			case "initialize":
				result = map[string]any{"protocolVersion": 1}
			case "session/new":
				result = map[string]any{"sessionId": "s"}
			case "session/prompt":
				for _, text := range says {
					if conn.WriteFrame(ctx, chunkNotification(text)) != nil {
						return
					}
				}
				result = map[string]any{"stopReason": "end_turn"}
			default:
				continue
			}
			answer, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
			Expect(err).NotTo(HaveOccurred())
			if conn.WriteFrame(ctx, answer) != nil {
				return
			}
		}
	}()
}

var _ = Describe("The mock client reading outcomes", func() {
	// probeSaying runs the deploy probe against an agent that says says.
	probeSaying := func(ctx context.Context, says ...string) (probe.Outcome, error) {
		GinkgoHelper()
		mine, agentEnd := wire.Pipe(wire.Options{})
		DeferCleanup(agentEnd.Close)
		sayingAgent(ctx, agentEnd, says...)
		c := client.New(client.Config{})
		c.Connect(mine)
		DeferCleanup(c.Close)
		Expect(c.Initialize(ctx)).To(Succeed())
		_, err := c.NewSession(ctx)
		Expect(err).NotTo(HaveOccurred())
		out, stop, err := c.Probe(ctx, deploy)
		Expect(stop).To(Equal("end_turn"))
		return out, err
	}

	DescribeTable("fails an outcome that breaks the outcome schema, naming where",
		func(ctx SpecContext, text, want string) {
			_, err := probeSaying(ctx, text)
			Expect(err).To(MatchError("the agent's outcome does not match the probe contract's outcome schema: " + want))
			var se *probe.SchemaError
			Expect(errors.As(err, &se)).To(BeTrue(), "the details stay for callers")
			Expect(se.Schema).To(Equal(probe.SchemaOutcome))
		},
		Entry("an index as a string", within, `{"acpconform":1,"outcome":"accepted","index":"1","value":"production"}`,
			`at /index: want integer, got string ("1") (schema: outcome.json#/properties/index/type)`),
		Entry("an acceptance without a value", within, `{"acpconform":1,"outcome":"accepted","index":1}`,
			`at the top level: missing "value": an accepted outcome of ask_choice has index and value (schema: outcome.json#/allOf/0/then/then/required)`),
		Entry("an unknown outcome kind", within, `{"acpconform":1,"outcome":"deferred"}`,
			`at /outcome: want one of "accepted", "declined", "cancelled", "error", got "deferred" (schema: outcome.json#/properties/outcome/enum)`),
		Entry("an error without its message", within, `{"acpconform":1,"outcome":"error","error":"internal"}`,
			`at the top level: missing "message": an error outcome has error and message (schema: outcome.json#/allOf/1/then/required)`),
		Entry("the version as a string", within, `{"acpconform":"1","outcome":"declined"}`,
			`at /acpconform: want 1, got "1" (schema: outcome.json#/properties/acpconform/const)`),
		Entry("an index with a fraction", within, `{"acpconform":1,"outcome":"accepted","index":0.5,"value":"preview"}`,
			`at /index: want integer, got number (0.5) (schema: outcome.json#/properties/index/type)`),
		Entry("an index past 2^53-1", within, `{"acpconform":1,"outcome":"accepted","index":1e1000001,"value":"preview"}`,
			`at /index: want at most 9007199254740991, got 1e1000001 (schema: outcome.json#/properties/index/maximum)`),
		Entry("a code below -(2^53-1)", within, `{"acpconform":1,"outcome":"error","error":"request_error","code":-1e400,"message":"m"}`,
			`at /code: want at least -9007199254740991, got -1e400 (schema: outcome.json#/properties/code/minimum)`),
	)

	DescribeTable("reads integers by value, however they are written",
		func(ctx SpecContext, text string, index, code *int) {
			out, err := probeSaying(ctx, text)
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Index).To(Equal(index))
			Expect(out.Code).To(Equal(code))
		},
		Entry("index 0.0, as Python writes a float", within, `{"acpconform":1.0,"outcome":"accepted","index":0.0,"value":"preview"}`, idx(0), nil),
		Entry("index 0e5", within, `{"acpconform":1,"outcome":"accepted","index":0e5,"value":"preview"}`, idx(0), nil),
		Entry("index -0", within, `{"acpconform":1,"outcome":"accepted","index":-0,"value":"preview"}`, idx(0), nil),
		Entry("index 1.0e0", within, `{"acpconform":1,"outcome":"accepted","index":1.0e0,"value":"production"}`, idx(1), nil),
		Entry("index 10e-1", within, `{"acpconform":1,"outcome":"accepted","index":10e-1,"value":"production"}`, idx(1), nil),
		Entry("index -1.0", within, `{"acpconform":1,"outcome":"accepted","index":-1.0,"value":"staging"}`, idx(-1), nil),
		Entry("code -32601.0", within, `{"acpconform":1,"outcome":"error","error":"request_error","code":-32601.0,"message":"Method not found"}`, nil, idx(-32601)),
	)

	DescribeTable("refuses an outcome nested deeper than it reads, saying so",
		func(ctx SpecContext, depth int) {
			deep := `{"acpconform":1,"outcome":"declined","detail":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
			_, err := probeSaying(ctx, "Let me ask the user.", deep, `{"acpconform":1,"outcome":"accepted","index":0,"value":"preview"}`)
			Expect(err).To(MatchError(fmt.Sprintf("the agent's outcome nests %d levels deep, deeper than the 10000 acpconform reads", depth)))
			Expect(errors.As(err, new(*client.OutcomeError))).To(BeTrue(), "the agent reported an outcome: it is not missing")
		},
		Entry("10,001 levels", within, 10_001),
		Entry("100,000 levels", within, 100_000), // deeper is for probe/schema's tests: the frame gets long
	)

	It("reads an outcome nested as deep as it reads", within, func(ctx SpecContext) {
		deep := `{"acpconform":1,"outcome":"declined","detail":` + strings.Repeat("[", probe.MaxDepth-1) + strings.Repeat("]", probe.MaxDepth-1) + `}`
		out, err := probeSaying(ctx, deep)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Outcome).To(Equal(probe.OutcomeDeclined))
	})

	It("takes the first outcome, even a broken one, and skips the other messages", within, func(ctx SpecContext) {
		_, err := probeSaying(ctx,
			"Let me ask the user.",
			`{"acpconform":1,"op":"ask_choice","question":"echoed"}`,
			`{"acpconform":1,"outcome":"accepted","index":"1","value":"production"}`,
			`{"acpconform":1,"outcome":"declined"}`)
		Expect(err).To(MatchError(ContainSubstring("at /index: want integer")))
	})

	It("reads an outcome among other messages", within, func(ctx SpecContext) {
		out, err := probeSaying(ctx, "Let me ask the user.", `{"acpconform":1,"outcome":"accepted","index":1.0,"value":"production","note":"members it does not know are ignored"}`, "Done.")
		Expect(err).NotTo(HaveOccurred())
		Expect(*out.Index).To(Equal(1))
		Expect(out.Value).To(MatchJSON(`"production"`))
	})

	It("says when no message was an outcome", within, func(ctx SpecContext) {
		_, err := probeSaying(ctx, "I would pick production.", `{"outcome":"declined"}`)
		Expect(err).To(MatchError(`the turn ended (end_turn) without an outcome report: none of its 2 agent messages was a JSON object with an "acpconform" member`))
	})

	It("fails a script's outcome step on a broken outcome, naming the step and where", within, func(ctx SpecContext) {
		s, err := script.Parse("broken.yaml", []byte(`
name: broken-outcome
peer: client
steps:
  - initialize: {}
  - newSession: {}
  - probe: {question: Q, choices: [{value: a, label: A}]}
  - outcome: {outcome: accepted}
`))
		Expect(err).NotTo(HaveOccurred())
		mine, agentEnd := wire.Pipe(wire.Options{})
		DeferCleanup(agentEnd.Close)
		sayingAgent(ctx, agentEnd, `{"acpconform":1,"outcome":"accepted","index":0}`)
		bounded, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		err = client.Run(bounded, s, mine)
		Expect(err).To(MatchError(And(
			ContainSubstring("broken.yaml:8: step 4 (outcome)"),
			ContainSubstring(`the agent's outcome does not match the probe contract's outcome schema: at the top level: missing "value"`))))
	})
})

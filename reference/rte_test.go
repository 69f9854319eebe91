package reference_test

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reference"
)

var _ = Describe("RTE: route registration and the connection", func() {
	DescribeTable("surfaces a JSON-RPC error answer with code, message and data intact, and nothing else (RTE-1, RTE-2)",
		func(ctx SpecContext, errObj string, code int, message string, data string) {
			c := formClient(ctx)
			fb := returning(reference.Decline[*target](), nil)
			done := ask(ctx, c.session(), "Choose", deployChoices(), fb.option())
			c.fail(c.nextRequest(ctx), errObj)
			res, err := await(ctx, done)
			var reqErr *reference.RequestError
			Expect(errors.As(err, &reqErr)).To(BeTrue(), "got %v", err)
			Expect(reqErr.Method).To(Equal("elicitation/create"))
			Expect(reqErr.Code).To(Equal(code))
			Expect(reqErr.Message).To(Equal(message))
			if data == "" {
				Expect(reqErr.Data).To(BeEmpty())
			} else {
				Expect(reqErr.Data).To(MatchJSON(data))
			}
			Expect(res.Status()).To(BeEmpty(), "not declined, not cancelled")
			Expect(fb.runs).To(BeZero(), "the fallback must not run")
			Expect(c.requests(ctx)).To(Equal([]string{"elicitation/create"}), "no retry, no permission request")
		},
		Entry("route not registered: -32601 (RTE-1)", within,
			`{"code":-32601,"message":"Method not found","data":{"method":"elicitation/create"}}`,
			-32601, "Method not found", `{"method":"elicitation/create"}`),
		Entry("-32601 in the TypeScript SDK's words (RTE-1)", within,
			`{"code":-32601,"message":"\"Method not found\": elicitation/create"}`,
			-32601, `"Method not found": elicitation/create`, ""),
		Entry("invalid params: -32602 (RTE-2)", within,
			`{"code":-32602,"message":"Invalid params","data":{"error":"missing sessionId"}}`,
			-32602, "Invalid params", `{"error":"missing sessionId"}`),
		Entry("internal error: -32603 (RTE-2)", within,
			`{"code":-32603,"message":"Internal error","data":{"error":"peer disconnected before response"}}`,
			-32603, "Internal error", `{"error":"peer disconnected before response"}`),
		Entry("an application code with structured data (RTE-2)", within,
			`{"code":4242,"message":"Editor busy","data":{"retryAfter":[1,2],"nested":{"ok":false}}}`,
			4242, "Editor busy", `{"retryAfter":[1,2],"nested":{"ok":false}}`),
		Entry("auth required: -32000 (RTE-2)", within,
			`{"code":-32000,"message":"Authentication required"}`,
			-32000, "Authentication required", ""),
	)

	It("needs no opt-in of the sending agent (RTE-4)", within, func(ctx SpecContext) {
		c := formClient(ctx) // a connection built with defaults only
		done := ask(ctx, c.session(), "Choose", deployChoices())
		req := c.nextRequest(ctx)
		Expect(req.Method).To(Equal("elicitation/create"))
		c.answer(req, `{"action":"accept","content":{"choice":"choice_1"}}`)
		res, err := await(ctx, done)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Value()).To(BeIdenticalTo(production))
	})

	It("ends a pending choice with a connection error when the connection closes (RTE-7)", within, func(ctx SpecContext) {
		c := formClient(ctx)
		done := ask(ctx, c.session(), "Choose", deployChoices())
		c.nextRequest(ctx)
		c.disconnect()
		res, err := await(ctx, done)
		Expect(err).To(MatchError(reference.ErrConnectionClosed))
		var reqErr *reference.RequestError
		Expect(errors.As(err, &reqErr)).To(BeFalse(), "a closed connection is not an answer")
		Expect(res.Status()).To(BeEmpty())
	})

	It("fails with a connection error when the request cannot be written (RTE-7)", within, func(ctx SpecContext) {
		c := formClient(ctx)
		c.stopReading()
		_, err := await(ctx, ask(ctx, c.session(), "Choose", deployChoices()))
		Expect(err).To(MatchError(reference.ErrConnectionClosed))
	})

	It("ends a pending choice when the caller cancels, and tells the client (RTE-7)", within, func(ctx SpecContext) {
		c := formClient(ctx)
		askCtx, cancel := context.WithCancel(ctx)
		done := ask(askCtx, c.session(), "Choose", deployChoices())
		req := c.nextRequest(ctx)
		cancel()
		res, err := await(ctx, done)
		Expect(err).To(MatchError(context.Canceled))
		Expect(res.Status()).To(BeEmpty())

		notice := c.nextRequest(ctx)
		Expect(notice.Method).To(Equal("$/cancel_request"))
		Expect(notice.ID).To(BeEmpty(), "a notification")
		var params struct{ RequestID json.RawMessage }
		Expect(json.Unmarshal(notice.Params, &params)).To(Succeed())
		Expect(params.RequestID).To(MatchJSON(req.ID))
	})

	It("ends a pending choice at the caller's deadline with the deadline's error (RTE-7)", within, func(ctx SpecContext) {
		c := formClient(ctx)
		deadlineCtx, stop := context.WithTimeout(ctx, 50*time.Millisecond)
		defer stop()
		done := ask(deadlineCtx, c.session(), "Choose", deployChoices())
		c.nextRequest(ctx)
		_, err := await(ctx, done)
		Expect(err).To(MatchError(context.DeadlineExceeded))
	})
})

package reference_test

import (
	"context"
	"errors"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reference"
)

var _ = Describe("CAP: capability negotiation", func() {
	DescribeTable("without form support nothing is sent and the caller hears so (CAP-2, CAP-3)",
		func(ctx SpecContext, caps string) {
			c := newFakeClient()
			c.initialize(ctx, caps)
			s := c.session()
			Expect(s.SupportsElicitation(reference.ModeForm)).To(BeFalse())
			_, err := await(ctx, ask(ctx, s, "Continue?", []reference.Choice[bool]{{Value: true, Label: "Continue"}}))
			Expect(err).To(MatchError(reference.ErrElicitationUnsupported))
			Expect(c.requests(ctx)).To(BeEmpty(), "no elicitation and no substitute permission request")
		},
		Entry("no capabilities at all", within, ""),
		Entry("capabilities without elicitation", within, `{"fs":{"readTextFile":true}}`),
		Entry("elicitation null", within, `{"elicitation":null}`),
		Entry("elicitation {}", within, `{"elicitation":{}}`),
		Entry("form null", within, `{"elicitation":{"form":null}}`),
		Entry("url alone", within, `{"elicitation":{"url":{}}}`),
		Entry("url alone, form null", within, `{"elicitation":{"url":{},"form":null}}`),
		Entry("form false", within, `{"elicitation":{"form":false}}`),
		Entry("form true", within, `{"elicitation":{"form":true}}`),
		Entry("form a string", within, `{"elicitation":{"form":"yes"}}`),
		Entry("form an array", within, `{"elicitation":{"form":[]}}`),
		Entry("form a number", within, `{"elicitation":{"form":1}}`),
		Entry("elicitation a string", within, `{"elicitation":"form"}`),
		Entry("url alone, form false", within, `{"elicitation":{"url":{},"form":false}}`),
	)

	DescribeTable("with form support the request is sent (CAP-1)",
		func(ctx SpecContext, caps string, url bool) {
			c := newFakeClient()
			c.initialize(ctx, caps)
			s := c.session()
			Expect(s.SupportsElicitation(reference.ModeForm)).To(BeTrue())
			Expect(s.SupportsElicitation(reference.ModeURL)).To(Equal(url))
			done := ask(ctx, s, "Continue?", []reference.Choice[bool]{{Value: true, Label: "Continue"}})
			c.answer(c.nextRequest(ctx), `{"action":"accept","content":{"choice":"choice_0"}}`)
			res, err := await(ctx, done)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Value()).To(BeTrue())
		},
		Entry("form {}", within, `{"elicitation":{"form":{}}}`, false),
		Entry("form with _meta", within, `{"elicitation":{"form":{"_meta":{"x":1}}}}`, false),
		Entry("form and url", within, `{"elicitation":{"form":{},"url":{}}}`, true),
		Entry("form with an unknown field", within, `{"elicitation":{"form":{"x":1}}}`, false),
		Entry("form, and url false", within, `{"elicitation":{"form":{},"url":false}}`, false),
		Entry("form, among other capabilities", within, `{"fs":{"readTextFile":true},"elicitation":{"form":{},"_meta":{"x":[1.0]}}}`, false),
	)

	It("keeps capabilities per connection, concurrently (CAP-4)", within, func(ctx SpecContext) {
		withForm := formClient(ctx)
		without := newFakeClient()
		without.initialize(ctx, `{"elicitation":{}}`)

		var wg sync.WaitGroup
		var formErr, bareErr error
		var formRes reference.Result[string]
		choices := []reference.Choice[string]{{Value: "a", Label: "A"}, {Value: "b", Label: "B"}}
		wg.Add(2)
		go func() {
			defer wg.Done()
			formRes, formErr = reference.AskChoice(ctx, withForm.session(), "Q", choices)
		}()
		go func() {
			defer wg.Done()
			_, bareErr = reference.AskChoice(ctx, without.session(), "Q", choices)
		}()
		withForm.answer(withForm.nextRequest(ctx), `{"action":"accept","content":{"choice":"choice_1"}}`)
		wg.Wait()
		Expect(formErr).NotTo(HaveOccurred())
		Expect(formRes.Value()).To(Equal("b"))
		Expect(bareErr).To(MatchError(reference.ErrElicitationUnsupported))
		Expect(without.requests(ctx)).To(BeEmpty())
		Expect(withForm.requests(ctx)).To(Equal([]string{"elicitation/create"}))
	})

	It("refuses a low-level request of an unadvertised mode without sending it", within, func(ctx SpecContext) {
		c := formClient(ctx)
		_, err := c.session().CreateElicitation(ctx, reference.ElicitationRequest{
			Mode: reference.ModeURL, Message: "Sign in", ElicitationID: "e1", URL: "https://example.com",
		})
		Expect(err).To(MatchError(reference.ErrElicitationUnsupported))
		Expect(c.requests(ctx)).To(BeEmpty())
	})

	It("sends a custom form scoped to the session and hands back any action", within, func(ctx SpecContext) {
		c := formClient(ctx)
		done := createIn(ctx, c, reference.ElicitationRequest{
			Mode: reference.ModeForm, Message: "Name?",
			RequestedSchema: &reference.ElicitationSchema{Type: "object", Properties: map[string]any{"name": map[string]any{"type": "string"}}},
		})
		req := c.nextRequest(ctx)
		Expect(req.Params).To(MatchJSON(`{"sessionId":"sess-1","mode":"form","message":"Name?",
			"requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`))
		c.answer(req, `{"action":"_defer","content":{"name":"Ada"}}`)
		var r reply
		Eventually(ctx, done).Should(Receive(&r))
		Expect(r.err).NotTo(HaveOccurred())
		Expect(r.resp.Action).To(Equal("_defer"))
		Expect(r.resp.Content).To(MatchJSON(`{"name":"Ada"}`))
	})

	DescribeTable("judges a form's answer against its schema (ELI-3)",
		func(ctx SpecContext, result string, wantErr bool, wantContent string) {
			c := formClient(ctx)
			done := createIn(ctx, c, reference.ElicitationRequest{
				Mode: reference.ModeForm, Message: "Age?",
				RequestedSchema: &reference.ElicitationSchema{Type: "object", Required: []string{"age"},
					Properties: map[string]any{"age": map[string]any{"type": "integer", "maximum": 150}}},
			})
			c.answer(c.nextRequest(ctx), result)
			var r reply
			Eventually(ctx, done).Should(Receive(&r))
			if wantErr {
				Expect(r.err).To(MatchError(reference.ErrInvalidResponse))
				return
			}
			Expect(r.err).NotTo(HaveOccurred())
			if wantContent == "" {
				Expect(r.resp.Content).To(BeNil())
			} else {
				Expect(r.resp.Content).To(MatchJSON(wantContent))
			}
		},
		Entry("a valid accept keeps its content, numbers as written", within, `{"action":"accept","content":{"age":36.0}}`, false, `{"age":36.0}`),
		Entry("a missing required property", within, `{"action":"accept","content":{}}`, true, ""),
		Entry("a string for an integer", within, `{"action":"accept","content":{"age":"36"}}`, true, ""),
		Entry("beyond the maximum", within, `{"action":"accept","content":{"age":151}}`, true, ""),
		Entry("a decline's content dropped", within, `{"action":"decline","content":{"age":1}}`, false, ""),
		Entry("a cancel's content dropped", within, `{"action":"cancel","content":{"age":"x"}}`, false, ""),
	)

	It("sends a URL-mode request when the client advertised url, with no schema on the wire", within, func(ctx SpecContext) {
		c := newFakeClient()
		c.initialize(ctx, `{"elicitation":{"url":{}}}`)
		done := make(chan error, 1)
		go func() {
			resp, err := c.session().CreateElicitation(ctx, reference.ElicitationRequest{
				Mode: reference.ModeURL, Message: "Sign in", ElicitationID: "e1", URL: "https://example.com/login",
			})
			if err == nil && resp.Action != "accept" {
				err = fmt.Errorf("action %q, want accept", resp.Action)
			}
			done <- err
		}()
		req := c.nextRequest(ctx)
		Expect(req.Params).To(MatchJSON(`{"sessionId":"sess-1","mode":"url","message":"Sign in",
			"elicitationId":"e1","url":"https://example.com/login"}`))
		c.answer(req, `{"action":"accept"}`)
		var err error
		Eventually(ctx, done).Should(Receive(&err))
		Expect(err).NotTo(HaveOccurred())
	})
})

var _ = Describe("RTE-3: a registered route is not a capability", func() {
	It("sends nothing to a client that can answer but did not advertise form (RTE-3)", within, func(ctx SpecContext) {
		c := newFakeClient()
		c.initialize(ctx, `{"elicitation":{"url":{}}}`)
		fallbackErr := errors.New("policy refused")
		_, err := await(ctx, ask(ctx, c.session(), "Q", []reference.Choice[int]{{Value: 1, Label: "One"}},
			reference.WithFallback(func(context.Context) (reference.Result[int], error) {
				return reference.Result[int]{}, fallbackErr
			})))
		Expect(err).To(BeIdenticalTo(fallbackErr), "the capability, not the route, decides")
		Expect(c.requests(ctx)).To(BeEmpty())
	})
})

// reply is what CreateElicitation returned.
type reply struct {
	resp reference.ElicitationResponse
	err  error
}

// createIn runs CreateElicitation in c's session in the background; its
// reply arrives on the channel once the test has answered the request.
func createIn(ctx context.Context, c *fakeClient, req reference.ElicitationRequest) <-chan reply {
	done := make(chan reply, 1)
	go func() {
		resp, err := c.session().CreateElicitation(ctx, req)
		done <- reply{resp, err}
	}()
	return done
}

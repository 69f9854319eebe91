package reference_test

import (
	"context"
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reference"
)

// answered asks the deploy question and answers with result.
func answered(ctx context.Context, result string) (reference.Result[*target], error) {
	GinkgoHelper()
	c := formClient(ctx)
	done := ask(ctx, c.session(), "Choose a deployment target", deployChoices())
	c.answer(c.nextRequest(ctx), result)
	return await(ctx, done)
}

var _ = Describe("TOK: reading the client's answer", func() {
	It("maps each offered token to that choice's own value, the same pointer (TOK-1)", within, func(ctx SpecContext) {
		res, err := answered(ctx, `{"action":"accept","content":{"choice":"choice_0"}}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status()).To(Equal(reference.StatusAccepted))
		Expect(res.Value()).To(BeIdenticalTo(preview))

		res, err = answered(ctx, `{"action":"accept","content":{"choice":"choice_1"}}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Value()).To(BeIdenticalTo(production))
	})

	DescribeTable("refuses every accept without a canonical offered token, default or not (TOK-2, DEF-3)",
		func(ctx SpecContext, result string) {
			res, err := answered(ctx, result)
			Expect(err).To(MatchError(reference.ErrInvalidResponse))
			Expect(err.Error()).To(ContainSubstring("no valid choice"))
			var respErr *reference.ResponseError
			Expect(errors.As(err, &respErr)).To(BeTrue())
			Expect(respErr.Result).To(MatchJSON(result))
			Expect(res.Status()).To(BeEmpty(), "no outcome alongside the error")
		},
		Entry("content missing", within, `{"action":"accept"}`),
		Entry("content null", within, `{"action":"accept","content":null}`),
		Entry("content a string", within, `{"action":"accept","content":"choice_0"}`),
		Entry("content an array", within, `{"action":"accept","content":["choice_0"]}`),
		Entry("choice missing", within, `{"action":"accept","content":{}}`),
		Entry("choice a number", within, `{"action":"accept","content":{"choice":0}}`),
		Entry("choice a bool", within, `{"action":"accept","content":{"choice":true}}`),
		Entry("choice null", within, `{"action":"accept","content":{"choice":null}}`),
		Entry("choice an array", within, `{"action":"accept","content":{"choice":["choice_0"]}}`),
		Entry("choice an object", within, `{"action":"accept","content":{"choice":{"const":"choice_0"}}}`),
		Entry("unknown string", within, `{"action":"accept","content":{"choice":"staging"}}`),
		Entry("empty string", within, `{"action":"accept","content":{"choice":""}}`),
		Entry("prefix only", within, `{"action":"accept","content":{"choice":"choice_"}}`),
		Entry("choice_nope", within, `{"action":"accept","content":{"choice":"choice_nope"}}`),
		Entry("out of range", within, `{"action":"accept","content":{"choice":"choice_2"}}`),
		Entry("far out of range", within, `{"action":"accept","content":{"choice":"choice_1000000"}}`),
		Entry("leading zero", within, `{"action":"accept","content":{"choice":"choice_01"}}`),
		Entry("double zero", within, `{"action":"accept","content":{"choice":"choice_00"}}`),
		Entry("plus sign", within, `{"action":"accept","content":{"choice":"choice_+1"}}`),
		Entry("minus sign", within, `{"action":"accept","content":{"choice":"choice_-1"}}`),
		Entry("leading space", within, `{"action":"accept","content":{"choice":" choice_0"}}`),
		Entry("trailing space", within, `{"action":"accept","content":{"choice":"choice_0 "}}`),
		Entry("upper case", within, `{"action":"accept","content":{"choice":"CHOICE_0"}}`),
		Entry("Arabic-Indic digit", within, `{"action":"accept","content":{"choice":"choice_\u0660"}}`),
		Entry("fullwidth digit", within, `{"action":"accept","content":{"choice":"choice_\uff11"}}`),
		Entry("superscript digit", within, `{"action":"accept","content":{"choice":"choice_\u00b9"}}`),
		Entry("digits too long for an int", within, `{"action":"accept","content":{"choice":"choice_99999999999999999999999999"}}`),
		Entry("the label instead of the token", within, `{"action":"accept","content":{"choice":"Production"}}`),
		Entry("the value instead of the token", within, `{"action":"accept","content":{"choice":"production-value"}}`),
		Entry("hexadecimal", within, `{"action":"accept","content":{"choice":"choice_0x1"}}`),
		Entry("decimal point", within, `{"action":"accept","content":{"choice":"choice_1.0"}}`),
		Entry("the token as a property name", within, `{"action":"accept","content":{"choice_0":true}}`),
	)

	DescribeTable("quotes a huge answer by its head and length, not in full",
		func(ctx SpecContext, result string) {
			_, err := answered(ctx, result)
			Expect(err).To(MatchError(reference.ErrInvalidResponse))
			Expect(len(err.Error())).To(BeNumerically("<", 1000), "the error's length")
			Expect(err.Error()).To(ContainSubstring("bytes"), "it says how long the answer was")
		},
		Entry("a 100,000-digit token", within, `{"action":"accept","content":{"choice":"choice_`+strings.Repeat("9", 100000)+`"}}`),
		Entry("a huge non-string choice", within, `{"action":"accept","content":{"choice":[`+strings.Repeat("1,", 50000)+`1]}}`),
	)

	It("ignores content keys other than choice (TOK-3)", within, func(ctx SpecContext) {
		res, err := answered(ctx, `{"action":"accept","content":{"choice":"choice_0","note":"hi","choice_1":true}}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Value()).To(BeIdenticalTo(preview))
	})

	It("gives tokens meaning only in the request that offered them (TOK-4)", within, func(ctx SpecContext) {
		c := formClient(ctx)
		three := []reference.Choice[string]{{Value: "a", Label: "A"}, {Value: "b", Label: "B"}, {Value: "c", Label: "C"}}
		done := ask(ctx, c.session(), "First", three)
		c.answer(c.nextRequest(ctx), `{"action":"accept","content":{"choice":"choice_2"}}`)
		res, err := await(ctx, done)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Value()).To(Equal("c"))

		two := []reference.Choice[string]{{Value: "x", Label: "X"}, {Value: "y", Label: "Y"}}
		done = ask(ctx, c.session(), "Second", two)
		c.answer(c.nextRequest(ctx), `{"action":"accept","content":{"choice":"choice_2"}}`)
		_, err = await(ctx, done)
		Expect(err).To(MatchError(reference.ErrInvalidResponse), "a token of the first request was accepted by the second")
	})
})

var _ = Describe("RES: the result contract", func() {
	It("returns declined and cancelled as themselves, even with a default (RES-1, DEF-4)", within, func(ctx SpecContext) {
		res, err := answered(ctx, `{"action":"decline"}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status()).To(Equal(reference.StatusDeclined))
		Expect(res.Value()).To(BeNil())

		res, err = answered(ctx, `{"action":"cancel"}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status()).To(Equal(reference.StatusCancelled))
		Expect(res.Value()).To(BeNil())
	})

	It("spells the statuses as the contract does (RES-1)", func() {
		Expect(string(reference.Accept(1).Status())).To(Equal("accepted"))
		Expect(string(reference.Decline[int]().Status())).To(Equal("declined"))
		Expect(string(reference.Cancel[int]().Status())).To(Equal("cancelled"))
	})

	DescribeTable("refuses an unknown or missing action, never reading it as an outcome (RES-2)",
		func(ctx SpecContext, result string) {
			res, err := answered(ctx, result)
			Expect(err).To(MatchError(reference.ErrInvalidResponse))
			Expect(res.Status()).To(BeEmpty())
		},
		Entry("_defer", within, `{"action":"_defer","content":{"choice":"choice_0"}}`),
		Entry("bogus", within, `{"action":"bogus"}`),
		Entry("Accept in another case", within, `{"action":"Accept","content":{"choice":"choice_0"}}`),
		Entry("missing, with content", within, `{"content":{"choice":"choice_0"}}`),
		Entry("empty object", within, `{}`),
		Entry("empty action", within, `{"action":""}`),
		Entry("action a number", within, `{"action":1}`),
		Entry("action null", within, `{"action":null,"content":{"choice":"choice_0"}}`),
		Entry("result null", within, `null`),
		Entry("result a string", within, `"accept"`),
		Entry("result an array", within, `[{"action":"accept"}]`),
	)

	It("makes the zero Result no outcome (RES-3)", func() {
		var zero reference.Result[string]
		Expect(zero.Status().Valid()).To(BeFalse())
		Expect(zero.Status()).To(BeEmpty())
		Expect(zero.String()).To(ContainSubstring("invalid"))
		Expect(reference.Decline[string]().Status().Valid()).To(BeTrue())
	})

	It("ignores content on a decline or a cancel (RES-4)", within, func(ctx SpecContext) {
		res, err := answered(ctx, `{"action":"decline","content":{"choice":"choice_1"}}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status()).To(Equal(reference.StatusDeclined))

		res, err = answered(ctx, `{"action":"cancel","content":"garbage"}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status()).To(Equal(reference.StatusCancelled))
	})
})

package reference_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reference"
)

var _ = Describe("VAL: invalid arguments", func() {
	DescribeTable("are refused with the contract's message, before anything is sent",
		func(ctx SpecContext, question string, choices []reference.Choice[string], want error, message string) {
			c := formClient(ctx)
			_, err := await(ctx, ask(ctx, c.session(), question, choices))
			Expect(err).To(MatchError(want))
			Expect(err).To(MatchError(reference.ErrInvalidArgument))
			Expect(err.Error()).To(Equal(message))
			var argErr *reference.ArgumentError
			Expect(errors.As(err, &argErr)).To(BeTrue())
			Expect(c.requests(ctx)).To(BeEmpty())
		},
		Entry("empty question (VAL-1)", within, "", []reference.Choice[string]{{Value: "a", Label: "A"}},
			reference.ErrBlankQuestion, "question must not be blank"),
		Entry("white-space question (VAL-1)", within, " \t\n\u00a0", []reference.Choice[string]{{Value: "a", Label: "A"}},
			reference.ErrBlankQuestion, "question must not be blank"),
		Entry("no choices (VAL-2)", within, "Q", []reference.Choice[string]{},
			reference.ErrNoChoices, "choices must not be empty"),
		Entry("nil choices (VAL-2)", within, "Q", []reference.Choice[string](nil),
			reference.ErrNoChoices, "choices must not be empty"),
		Entry("empty label (VAL-3)", within, "Q", []reference.Choice[string]{{Value: "a", Label: "A"}, {Value: "b", Label: ""}},
			reference.ErrBlankLabel, "choice labels must not be blank"),
		Entry("white-space label (VAL-3)", within, "Q", []reference.Choice[string]{{Value: "a", Label: "  "}},
			reference.ErrBlankLabel, "choice labels must not be blank"),
		Entry("two defaults (VAL-4, DEF-1)", within, "Q", []reference.Choice[string]{{Value: "a", Label: "A", Default: true}, {Value: "b", Label: "B", Default: true}},
			reference.ErrMoreThanOneDefault, "at most one choice may be the default"),
		Entry("blank question before no choices (order)", within, "", []reference.Choice[string]{},
			reference.ErrBlankQuestion, "question must not be blank"),
		Entry("blank label before two defaults (order)", within, "Q",
			[]reference.Choice[string]{{Value: "a", Label: "A", Default: true}, {Value: "b", Label: "B", Default: true}, {Value: "c", Label: ""}},
			reference.ErrBlankLabel, "choice labels must not be blank"),
	)

	It("validates before the capability check and the fallback (VAL-5)", within, func(ctx SpecContext) {
		c := newFakeClient()
		c.initialize(ctx, `{}`)
		ran := false
		fallback := reference.WithFallback(func(context.Context) (reference.Result[string], error) {
			ran = true
			return reference.Decline[string](), nil
		})
		_, err := await(ctx, ask(ctx, c.session(), " ", []reference.Choice[string]{{Value: "a", Label: "A"}}, fallback))
		Expect(err).To(MatchError(reference.ErrBlankQuestion))
		Expect(ran).To(BeFalse(), "the fallback ran for invalid arguments")
		Expect(c.requests(ctx)).To(BeEmpty())
	})

	It("allows duplicate labels, duplicate values and many choices", within, func(ctx SpecContext) {
		c := formClient(ctx)
		choices := make([]reference.Choice[string], 500)
		for i := range choices {
			choices[i] = reference.Choice[string]{Value: "same", Label: "Same"}
		}
		done := ask(ctx, c.session(), "Q", choices)
		c.answer(c.nextRequest(ctx), `{"action":"accept","content":{"choice":"choice_499"}}`)
		res, err := await(ctx, done)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status()).To(Equal(reference.StatusAccepted))
	})
})

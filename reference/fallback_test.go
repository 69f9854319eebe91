package reference_test

import (
	"context"
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reference"
)

// bareClient returns a fake client that advertised no elicitation.
func bareClient(ctx context.Context) *fakeClient {
	GinkgoHelper()
	c := newFakeClient()
	c.initialize(ctx, `{}`)
	return c
}

// counted wraps a fallback so specs can see whether and how often it ran.
type counted[T any] struct {
	runs int
	fn   func(context.Context) (reference.Result[T], error)
}

func (c *counted[T]) option() reference.Option[T] {
	return reference.WithFallback(func(ctx context.Context) (reference.Result[T], error) {
		c.runs++
		return c.fn(ctx)
	})
}

func returning[T any](res reference.Result[T], err error) *counted[T] {
	return &counted[T]{fn: func(context.Context) (reference.Result[T], error) { return res, err }}
}

var _ = Describe("FB: fallbacks", func() {
	DescribeTable("never run when the client supports form, whatever it answers (FB-1)",
		func(ctx SpecContext, respond func(c *fakeClient, req frame), check func(error)) {
			c := formClient(ctx)
			fb := returning(reference.Accept(preview), nil)
			done := ask(ctx, c.session(), "Choose", deployChoices(), fb.option())
			respond(c, c.nextRequest(ctx))
			_, err := await(ctx, done)
			check(err)
			Expect(fb.runs).To(BeZero())
		},
		Entry("decline", within, func(c *fakeClient, req frame) { c.answer(req, `{"action":"decline"}`) },
			func(err error) { Expect(err).NotTo(HaveOccurred()) }),
		Entry("cancel", within, func(c *fakeClient, req frame) { c.answer(req, `{"action":"cancel"}`) },
			func(err error) { Expect(err).NotTo(HaveOccurred()) }),
		Entry("an invalid answer", within, func(c *fakeClient, req frame) { c.answer(req, `{"action":"accept","content":{}}`) },
			func(err error) { Expect(err).To(MatchError(reference.ErrInvalidResponse)) }),
		Entry("a JSON-RPC error", within, func(c *fakeClient, req frame) {
			c.fail(req, `{"code":-32603,"message":"Internal error"}`)
		}, func(err error) { Expect(err).To(BeAssignableToTypeOf(&reference.RequestError{})) }),
		Entry("a closed connection", within, func(c *fakeClient, _ frame) { c.disconnect() },
			func(err error) { Expect(err).To(MatchError(reference.ErrConnectionClosed)) }),
	)

	It("may answer at once (FB-2)", within, func(ctx SpecContext) {
		fb := returning(reference.Decline[*target](), nil)
		res, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Choose", deployChoices(), fb.option()))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status()).To(Equal(reference.StatusDeclined))
		Expect(fb.runs).To(Equal(1))
	})

	It("may block, and is ended by its context (FB-2)", within, func(ctx SpecContext) {
		started := make(chan struct{})
		fb := &counted[*target]{fn: func(ctx context.Context) (reference.Result[*target], error) {
			close(started)
			<-ctx.Done()
			return reference.Result[*target]{}, ctx.Err()
		}}
		askCtx, cancel := context.WithCancel(ctx)
		done := ask(askCtx, bareClient(ctx).session(), "Choose", deployChoices(), fb.option())
		Eventually(ctx, started).Should(BeClosed())
		cancel()
		res, err := await(ctx, done)
		Expect(err).To(MatchError(context.Canceled))
		Expect(res.Status()).To(BeEmpty())
	})

	It("may block and then answer (FB-2)", within, func(ctx SpecContext) {
		release := make(chan struct{})
		fb := &counted[*target]{fn: func(ctx context.Context) (reference.Result[*target], error) {
			select {
			case <-release:
				return reference.Accept(production), nil
			case <-ctx.Done():
				return reference.Result[*target]{}, ctx.Err()
			}
		}}
		done := ask(ctx, bareClient(ctx).session(), "Choose", deployChoices(), fb.option())
		Consistently(done).ShouldNot(Receive())
		close(release)
		res, err := await(ctx, done)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Value()).To(BeIdenticalTo(production))
	})

	DescribeTable("returns a declined or cancelled fallback unchanged, default or not (FB-3, DEF-4)",
		func(ctx SpecContext, res reference.Result[*target]) {
			got, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Choose", deployChoices(), returning(res, nil).option()))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(res))
		},
		Entry("declined", within, reference.Decline[*target]()),
		Entry("cancelled", within, reference.Cancel[*target]()),
	)

	It("returns the offered value for an accepted fallback, not the fallback's copy (FB-4)", within, func(ctx SpecContext) {
		type version struct{ major, minor int }
		offered := []reference.Choice[version]{{Value: version{1, 0}, Label: "1.0"}, {Value: version{2, 0}, Label: "2.0"}}
		res, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Version", offered, returning(reference.Accept(version{2, 0}), nil).option()))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Value()).To(Equal(version{2, 0}))

		sameName := &target{name: "production-value"} // equal content, another pointer
		fb := &counted[*target]{fn: func(context.Context) (reference.Result[*target], error) { return reference.Accept(sameName), nil }}
		equalByName := reference.WithEqual(func(o, c *target) bool { return o.name == c.name })
		res2, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Choose", deployChoices(), fb.option(), equalByName))
		Expect(err).NotTo(HaveOccurred())
		Expect(res2.Value()).To(BeIdenticalTo(production), "the canonical, offered pointer")
	})

	It("refuses an accepted fallback whose value was not offered (FB-4)", within, func(ctx SpecContext) {
		elsewhere := &target{name: "production-value"}
		_, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Choose", deployChoices(), returning(reference.Accept(elsewhere), nil).option()))
		Expect(err).To(MatchError(reference.ErrInvalidFallback))
		Expect(err.Error()).To(ContainSubstring("was not offered"))
		var fbErr *reference.FallbackError
		Expect(errors.As(err, &fbErr)).To(BeTrue())
	})

	It("refuses a fallback that returns the zero Result (FB-4, RES-3)", within, func(ctx SpecContext) {
		_, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Choose", deployChoices(), returning(reference.Result[*target]{}, nil).option()))
		Expect(err).To(MatchError(reference.ErrInvalidFallback))
	})

	It("propagates the fallback's error unchanged (FB-5)", within, func(ctx SpecContext) {
		type policyError struct{ error }
		cause := &policyError{errors.New("policy forbids asking")}
		wrapped := fmt.Errorf("fallback: %w", cause)
		res, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Choose", deployChoices(), returning(reference.Accept(preview), wrapped).option()))
		Expect(err).To(BeIdenticalTo(wrapped))
		var target *policyError
		Expect(errors.As(err, &target)).To(BeTrue())
		Expect(res.Status()).To(BeEmpty(), "an error is never an outcome")
	})

	It("matches in order, first match wins (FB-6)", within, func(ctx SpecContext) {
		offered := []reference.Choice[*string]{}
		a1, a2 := new(string), new(string)
		*a1, *a2 = "a", "a"
		offered = append(offered, reference.Choice[*string]{Value: a1, Label: "First A"}, reference.Choice[*string]{Value: a2, Label: "Second A"})
		byContent := reference.WithEqual(func(o, c *string) bool { return *o == *c })
		candidate := "a"
		res, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Q", offered, returning(reference.Accept(&candidate), nil).option(), byContent))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Value()).To(BeIdenticalTo(a1))
	})

	It("skips a choice whose comparison panics and goes on (FB-6)", within, func(ctx SpecContext) {
		offered := []reference.Choice[any]{
			{Value: []int{1}, Label: "A slice: == panics"},
			{Value: map[string]int{"a": 1}, Label: "A map: == panics"},
			{Value: "plain", Label: "A string"},
		}
		res, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Q", offered, returning(reference.Accept[any]("plain"), nil).option()))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Value()).To(Equal("plain"))

		_, err = await(ctx, ask(ctx, bareClient(ctx).session(), "Q", offered, returning(reference.Accept[any]([]int{1}), nil).option()))
		Expect(err).To(MatchError(reference.ErrInvalidFallback), "uncomparable values never match by default")
	})

	It("skips a choice whose custom comparison panics (FB-6)", within, func(ctx SpecContext) {
		offered := []reference.Choice[int]{{Value: 1, Label: "One"}, {Value: 2, Label: "Two"}}
		picky := reference.WithEqual(func(o, c int) bool {
			if o == 1 {
				panic("cannot compare one")
			}
			return o == c
		})
		_, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Q", offered, returning(reference.Accept(1), nil).option(), picky))
		Expect(err).To(MatchError(reference.ErrInvalidFallback))
		res, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Q", offered, returning(reference.Accept(2), nil).option(), picky))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Value()).To(Equal(2))
	})
})

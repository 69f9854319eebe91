package reference_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reference"
)

// plain is a deprecated plain-value fallback returning v.
func plain[T any](v T, err error) reference.Option[T] {
	return reference.WithPlainFallback(func(context.Context) (T, error) { return v, err }) //nolint:staticcheck // under test
}

// logged returns a session of a client without elicitation whose warnings go
// to the returned buffer, one line each.
func logged(ctx context.Context) (*reference.Session, *bytes.Buffer) {
	GinkgoHelper()
	var buf bytes.Buffer
	s := bareClient(ctx).session()
	s.Log = slog.New(slog.NewTextHandler(&buf, nil))
	return s, &buf
}

func warnings(buf *bytes.Buffer) []string {
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

var _ = Describe("DEP: the deprecated plain-value fallback", func() {
	It("still works, warns once, and returns the offered value (DEP-1, DEP-2)", within, func(ctx SpecContext) {
		s, buf := logged(ctx)
		type id struct{ n int }
		offered := []reference.Choice[id]{{Value: id{1}, Label: "One"}, {Value: id{2}, Label: "Two"}}
		res, err := await(ctx, ask(ctx, s, "Q", offered, plain(id{2}, nil)))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status()).To(Equal(reference.StatusAccepted))
		Expect(res.Value()).To(Equal(id{2}))
		Expect(warnings(buf)).To(HaveExactElements(And(
			ContainSubstring("level=WARN"),
			ContainSubstring("plain value"),
			ContainSubstring("deprecated=plain-value-fallback"),
		)))
	})

	It("returns the offered pointer, not the fallback's (DEP-2)", within, func(ctx SpecContext) {
		s, _ := logged(ctx)
		copyOfProduction := &target{name: "production-value"}
		byName := reference.WithEqual(func(o, c *target) bool { return o.name == c.name })
		res, err := await(ctx, ask(ctx, s, "Q", deployChoices(), plain(copyOfProduction, nil), byName))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Value()).To(BeIdenticalTo(production))
	})

	It("warns before validating: a value not offered warns once and fails (DEP-1, DEP-2)", within, func(ctx SpecContext) {
		s, buf := logged(ctx)
		_, err := await(ctx, ask(ctx, s, "Q", []reference.Choice[string]{{Value: "a", Label: "A"}}, plain("b", nil)))
		Expect(err).To(MatchError(reference.ErrInvalidFallback))
		Expect(err.Error()).To(ContainSubstring("was not offered"))
		Expect(warnings(buf)).To(HaveLen(1))
	})

	It("takes nil as a real value when offered (DEP-3)", within, func(ctx SpecContext) {
		s, buf := logged(ctx)
		offered := []reference.Choice[any]{{Value: "a", Label: "A"}, {Value: nil, Label: "Nothing", Default: true}}
		res, err := await(ctx, ask(ctx, s, "Q", offered, plain[any](nil, nil)))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status()).To(Equal(reference.StatusAccepted), "nil is not a decline or cancel sentinel")
		Expect(res.Value()).To(BeNil())
		Expect(warnings(buf)).To(HaveLen(1))

		var none *target
		withNilPointer := append(deployChoices(), reference.Choice[*target]{Value: none, Label: "None"})
		res2, err := await(ctx, ask(ctx, s, "Q", withNilPointer, plain(none, nil)))
		Expect(err).NotTo(HaveOccurred())
		Expect(res2.Status()).To(Equal(reference.StatusAccepted))
		Expect(res2.Value()).To(BeNil())
	})

	It("refuses nil when nil was not offered (DEP-3)", within, func(ctx SpecContext) {
		s, _ := logged(ctx)
		_, err := await(ctx, ask(ctx, s, "Q", []reference.Choice[any]{{Value: "a", Label: "A"}}, plain[any](nil, nil)))
		Expect(err).To(MatchError(reference.ErrInvalidFallback))
	})

	It("propagates a plain fallback's error without a warning (FB-5)", within, func(ctx SpecContext) {
		s, buf := logged(ctx)
		boom := errors.New("boom")
		_, err := await(ctx, ask(ctx, s, "Q", []reference.Choice[string]{{Value: "a", Label: "A"}}, plain("a", boom)))
		Expect(err).To(BeIdenticalTo(boom))
		Expect(buf.Len()).To(BeZero())
	})

	It("warns through slog.Default when the session has no Log", within, func(ctx SpecContext) {
		var buf bytes.Buffer
		previous := slog.Default()
		slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
		DeferCleanup(slog.SetDefault, previous)
		_, err := await(ctx, ask(ctx, bareClient(ctx).session(), "Q", []reference.Choice[string]{{Value: "a", Label: "A"}}, plain("a", nil)))
		Expect(err).NotTo(HaveOccurred())
		Expect(buf.String()).To(ContainSubstring("plain value"))
	})

	It("is not warned about by the non-deprecated fallback", within, func(ctx SpecContext) {
		s, buf := logged(ctx)
		_, err := await(ctx, ask(ctx, s, "Q", []reference.Choice[string]{{Value: "a", Label: "A"}}, returning(reference.Accept("a"), nil).option()))
		Expect(err).NotTo(HaveOccurred())
		Expect(buf.Len()).To(BeZero())
	})
})

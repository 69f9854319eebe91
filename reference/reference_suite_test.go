package reference_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reference"
)

func TestReference(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Reference ask_choice")
}

// within bounds every spec against a hang: a hang fails the spec instead
// of the run. It is no speed limit: a spec that loops hundreds of times
// takes many times longer on a loaded 2-core machine.
var within = SpecTimeout(2 * time.Minute)

// formCaps advertises form elicitation.
const formCaps = `{"elicitation":{"form":{}}}`

// target is an application type that is neither serializable nor printable.
type target struct {
	name   string
	deploy func() string
}

var (
	preview    = &target{name: "preview-value", deploy: func() string { return "p" }}
	production = &target{name: "production-value", deploy: func() string { return "P" }}
)

// deployChoices is the seed's example: two pointers, the second the default
// with a description.
func deployChoices() []reference.Choice[*target] {
	return []reference.Choice[*target]{
		{Value: preview, Label: "Preview"},
		{Value: production, Label: "Production", Description: "Deploy to the production environment.", Default: true},
	}
}

// formClient returns a fake client that advertised form elicitation.
func formClient(ctx context.Context) *fakeClient {
	GinkgoHelper()
	c := newFakeClient()
	c.initialize(ctx, formCaps)
	return c
}

package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/suite"
)

// Declaration is one check as the catalogue declares it, before it runs.
type Declaration struct {
	ID    string // RULE/slug, such as TOK-2/leading-zero
	Text  string // the check's own text: an It's, or a table entry's
	Area  string // the area of its first rule
	Level suite.Level
	Role  suite.Role
	Rules []string // the CONTRACT IDs it cites, the first first
	// Labels are the check's own labels, as a label filter sees them:
	// rule:, area:, role:, level:, check:, expects:error and in-process,
	// remote or wire-only. Labels of containers around the catalogue are
	// not in it.
	Labels []string
}

// Checks is what one call of Catalogue declares. Ginkgo enters the
// catalogue's containers only when it builds its tree, at the start of
// the run: the list is empty when Catalogue returns and complete from
// ReportBeforeSuite (suite.Config.OnStart) on, before any check runs.
// A check selected by the run's label filter may still skip itself: a
// check labelled in-process on another subject, a form check on a client
// that advertises no form.
type Checks struct {
	mu   sync.Mutex
	list []Declaration
	ids  map[string]bool
}

// List returns the checks declared so far, in the order of declaration.
func (c *Checks) List() []Declaration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Declaration(nil), c.list...)
}

// add records a check; a second check of one ID panics while the tree is
// built, as an unknown rule does.
func (c *Checks) add(d Declaration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids[d.ID] {
		panic(fmt.Sprintf("scenarios: two checks are %s", d.ID))
	}
	if c.ids == nil {
		c.ids = map[string]bool{}
	}
	c.ids[d.ID] = true
	c.list = append(c.list, d)
}

// expectsError labels a check that passes only when the subject ends in
// an error: an error outcome of the probe, an error ask_choice returns in
// process, or an error answer. A success there must fail it, whatever the
// check looks at besides; the mutant errors-answered-as-success shows
// that it does (mutants). An entry whose arguments hold an error outcome
// carries the label by itself; a check that asserts an expected error
// without it fails (wantsError).
var expectsError = Label(expectsErrorLabel)

const expectsErrorLabel = "expects:error"

// slug names an entry's check where the slug derived from its text will
// not do: too long, or taken.
type slug string

// it declares one check with its slug: its ID is the first rule among
// args, then the slug. It is bounded by the scenario timeout.
func (e *env) it(slug, text string, args ...any) {
	GinkgoHelper()
	It(text, append(e.declare(slug, text, args), SpecTimeout(e.scenario+e.startup))...)
}

// entry declares one table entry, bounded by the scenario timeout. Its
// slug is its text in kebab-case without a leading article (a leading
// zero: leading-zero), unless a slug among args says otherwise.
func (e *env) entry(text string, args ...any) TableEntry {
	GinkgoHelper()
	return Entry(text, append([]any{SpecTimeout(e.scenario + e.startup)}, e.declare(slugOf(text), text, args)...)...)
}

// declare records the check and returns its Ginkgo arguments with its
// check label; a slug argument replaces s. It panics, while the tree is
// built, on a check without rules or with a malformed slug.
func (e *env) declare(s, text string, args []any) []any {
	var labels Labels
	out := make([]any, 0, len(args)+1)
	for _, a := range args {
		switch a := a.(type) {
		case slug:
			s = string(a)
			continue
		case Labels:
			labels = append(labels, a...)
		case probe.Outcome:
			if a.Outcome == probe.OutcomeError && !slices.Contains(labels, expectsErrorLabel) {
				labels = append(labels, expectsErrorLabel)
				out = append(out, expectsError)
			}
		}
		out = append(out, a)
	}
	d := Declaration{Text: text}
	for _, l := range labels {
		key, value, _ := strings.Cut(l, ":")
		switch key {
		case "rule":
			d.Rules = append(d.Rules, value)
		case "area":
			d.Area = value
		case "level":
			d.Level = suite.Level(value)
		case "role":
			d.Role = suite.Role(value)
		}
	}
	if len(d.Rules) == 0 {
		panic(fmt.Sprintf("scenarios: the check %q cites no rule", text))
	}
	d.ID = d.Rules[0] + "/" + s
	if err := suite.ValidCheckID(d.ID, d.Rules[0]); err != nil {
		panic(fmt.Sprintf("scenarios: %q: %v", text, err))
	}
	label := suite.CheckLabel(d.Rules[0], s)
	d.Labels = append(append([]string(nil), labels...), label)
	e.checks.add(d)
	out = append(out, Label(label))
	if e.share.on && !slices.Contains(labels, freshLabel) {
		out = append(out, FlakeAttempts(2)) // a failure on a shared connection runs again (share.go)
	}
	return out
}

// slugOf is text in kebab-case, without apostrophes and leading articles:
// "a fallback's decline" is fallbacks-decline.
func slugOf(text string) string {
	text = strings.NewReplacer("'", "", "\u2019", "").Replace(strings.ToLower(text))
	words := strings.FieldsFunc(text, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') })
	for len(words) > 1 && (words[0] == "a" || words[0] == "an" || words[0] == "the") {
		words = words[1:]
	}
	return strings.Join(words, "-")
}

// wantsError returns nil when the running check carries expects:error, and
// says otherwise which label the check lacks: an expected error asserted
// by a check that does not say it expects one would escape the guard that
// a success fails it. Outside a check it returns nil.
func wantsError() error {
	r := CurrentSpecReport()
	if r.LeafNodeText == "" || slices.Contains(r.Labels(), expectsErrorLabel) {
		return nil
	}
	return fmt.Errorf("scenarios: the check %q asserts an expected error, but lacks the label %s (scenarios/checks.go: give it expectsError)", r.LeafNodeText, expectsErrorLabel)
}

package reports

import (
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// RepeatRules is how many rules one cause must fail in a row, check after
// check, before the rest of a run would only repeat it: an agent whose
// feature is not written yet, or that crashes on every prompt, fails the
// checks of every rule with one reason. A cause that fails many checks of
// one rule (36 tokens of TOK-2, say) is a finding about that rule, and
// the run goes on to the next.
const RepeatRules = 5

// Repeats watches a run's checks end, in the run's order, for one cause
// failing RepeatRules rules in a row; a check that passes or fails for
// another cause starts the count again, and checks not run are passed
// over. Its zero value is ready.
type Repeats struct {
	key    string          // the cause of the last failure in a row
	reason string          // its reason's first line, as causes compare reasons
	first  string          // the check that showed it first
	rules  map[string]bool // the rules it failed
	count  int             // checks it failed
}

// Ended is told of each check as it ends, its attempts over.
func (r *Repeats) Ended(s types.SpecReport) {
	if s.LeafNodeType != types.NodeTypeIt {
		return
	}
	c := checkOf(s, nil, false)
	switch {
	case !c.Ran() && c.State != StateError && c.State != StateInterrupted:
		return // not run: says nothing of the subject
	case !c.Failed() && c.State != StateError:
		*r = Repeats{}
		return
	}
	// One cause, as Causes tells them, or one reason: a check whose
	// subject's process ended during it has a cause of its own (how the
	// process ended), though it failed as the others did.
	key, reason := causeKey(c), firstReason(c)
	if r.rules == nil || key != r.key && reason != r.reason {
		*r = Repeats{first: c.Key(), rules: map[string]bool{}}
	}
	r.key, r.reason = key, reason
	r.count++
	if len(c.Rules) > 0 {
		r.rules[c.Rules[0]] = true
	}
}

// firstReason is what of c's reason two failures of one cause share:
// its first line, as causeKey reads it, with its subject and kind.
func firstReason(c Check) string {
	first, _, _ := strings.Cut(normalise(c.Failure), "\n")
	return strings.Join([]string{subjectOf(c), c.State, c.Known, first}, "\x00")
}

// Stop says why the rest of the run would only repeat one cause: "" until
// it has failed RepeatRules rules in a row.
func (r *Repeats) Stop() string {
	if len(r.rules) < RepeatRules {
		return ""
	}
	return fmt.Sprintf("not run: the same cause failed the %d checks before it, of %d rules, in a row (the first: %s); --keep-going runs every check", r.count, len(r.rules), r.first)
}

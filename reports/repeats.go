package reports

import (
	"fmt"

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
	key   string          // the cause of the failures in a row
	first string          // the check that showed it first
	rules map[string]bool // the rules it failed
	count int             // checks it failed
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
	if key := causeKey(c); key != r.key || r.rules == nil {
		*r = Repeats{key: key, first: c.Key(), rules: map[string]bool{}}
	}
	r.count++
	if len(c.Rules) > 0 {
		r.rules[c.Rules[0]] = true
	}
}

// Stop says why the rest of the run would only repeat one cause: "" until
// it has failed RepeatRules rules in a row.
func (r *Repeats) Stop() string {
	if len(r.rules) < RepeatRules {
		return ""
	}
	return fmt.Sprintf("not run: the same cause failed the %d checks before it, of %d rules, in a row (the first: %s); --keep-going runs every check", r.count, len(r.rules), r.first)
}

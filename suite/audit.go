package suite

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// Audit checks a catalogue's report against the contract: every rule has a
// spec, unless it is pending; every rule label names a rule; every spec
// carries at least one rule; and no two specs share a name. It returns
// every problem at once.
func Audit(r types.Report) error {
	var errs []error
	covered := map[string]bool{}
	names := map[string]bool{}
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		name := s.FullText()
		if names[name] {
			errs = append(errs, fmt.Errorf("two specs are named %q", name))
		}
		names[name] = true
		n := 0
		for _, l := range s.Labels() {
			id, ok := strings.CutPrefix(l, "rule:")
			if !ok {
				continue
			}
			n++
			if _, known := Lookup(id); !known {
				errs = append(errs, fmt.Errorf("%q cites %s, which is not a CONTRACT ID", name, id))
			}
			covered[id] = true
		}
		if n == 0 {
			errs = append(errs, fmt.Errorf("%q cites no CONTRACT ID", name))
		}
	}
	var missing []string
	for _, rule := range Rules() {
		_, pending := Pending[rule.ID]
		switch {
		case !covered[rule.ID] && !pending:
			missing = append(missing, rule.ID)
		case covered[rule.ID] && pending:
			errs = append(errs, fmt.Errorf("%s has scenarios now: take it off the pending list", rule.ID))
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		errs = append(errs, fmt.Errorf("no scenario checks %s", strings.Join(missing, ", ")))
	}
	return errors.Join(errs...)
}

package suite

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// CheckLabelPrefix starts the label that carries a check's ID. Ginkgo
// labels may not hold a "/", so the ID TOK-2/leading-zero is the label
// check:TOK-2:leading-zero; label filters select it as
// /^check:TOK-2:lead/ or "check: containsAny TOK-2:leading-zero".
const CheckLabelPrefix = "check:"

// MaxSlug bounds the slug of a check ID.
const MaxSlug = 40

var slugForm = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// CheckLabel is the label of the check rule/slug.
func CheckLabel(rule, slug string) string { return CheckLabelPrefix + rule + ":" + slug }

// CheckID reads a check label: check:TOK-2:leading-zero is TOK-2/leading-zero.
// It reports false for any other label.
func CheckID(label string) (string, bool) {
	rest, ok := strings.CutPrefix(label, CheckLabelPrefix)
	if !ok {
		return "", false
	}
	rule, slug, ok := strings.Cut(rest, ":")
	if !ok {
		return rest, true // malformed, but a check label: ValidCheckID says why
	}
	return rule + "/" + slug, true
}

// ValidCheckID says what is wrong with a check ID, given the first rule
// its check cites: its rule must be that rule, its slug kebab-case of at
// most MaxSlug characters. It returns nil for a good ID.
func ValidCheckID(id, firstRule string) error {
	rule, slug, ok := strings.Cut(id, "/")
	switch {
	case !ok:
		return fmt.Errorf("the check ID %q is not RULE/slug", id)
	case rule != firstRule:
		return fmt.Errorf("the check ID %q names %s, but the check's first rule is %s", id, rule, firstRule)
	case !slugForm.MatchString(slug):
		return fmt.Errorf("the slug of %q is not kebab-case (a-z, 0-9 and single dashes)", id)
	case len(slug) > MaxSlug:
		return fmt.Errorf("the slug of %q has %d characters, more than %d", id, len(slug), MaxSlug)
	}
	return nil
}

// Audit checks a catalogue's report against the contract: every rule has a
// spec, unless it is pending; every rule label names a rule; every spec
// carries at least one rule and exactly one check ID, RULE/slug with its
// first rule; no two specs share a name; and no two checks share an ID.
// A check declared against several subjects is one check: its specs share
// their text and place in the source. It returns every problem at once.
func Audit(r types.Report) error {
	var errs []error
	covered := map[string]bool{}
	names := map[string]bool{}
	ids := map[string]types.SpecReport{} // each ID's first check
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		name := s.FullText()
		if names[name] {
			errs = append(errs, fmt.Errorf("two specs are named %q", name))
		}
		names[name] = true
		var cited, checks []string
		for _, l := range s.Labels() {
			if id, ok := CheckID(l); ok {
				checks = append(checks, id)
			}
			id, ok := strings.CutPrefix(l, "rule:")
			if !ok {
				continue
			}
			cited = append(cited, id)
			if _, known := Lookup(id); !known {
				errs = append(errs, fmt.Errorf("%q cites %s, which is not a CONTRACT ID", name, id))
			}
			covered[id] = true
		}
		if len(cited) == 0 {
			errs = append(errs, fmt.Errorf("%q cites no CONTRACT ID", name))
		}
		switch {
		case len(checks) != 1:
			errs = append(errs, fmt.Errorf("%q has %d check IDs %q, want exactly one", name, len(checks), checks))
		case len(cited) > 0:
			if err := ValidCheckID(checks[0], cited[0]); err != nil {
				errs = append(errs, fmt.Errorf("%q: %w", name, err))
			}
		}
		if len(checks) != 1 {
			continue
		}
		if first, seen := ids[checks[0]]; !seen {
			ids[checks[0]] = s
		} else if !sameCheck(first, s) {
			errs = append(errs, fmt.Errorf("two checks are %s: %q (%s) and %q (%s)",
				checks[0], first.FullText(), first.LeafNodeLocation, name, s.LeafNodeLocation))
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

// sameCheck reports whether two specs are one check declared twice: the
// same text at the same place.
func sameCheck(a, b types.SpecReport) bool {
	return a.LeafNodeText == b.LeafNodeText &&
		a.LeafNodeLocation.FileName == b.LeafNodeLocation.FileName &&
		a.LeafNodeLocation.LineNumber == b.LeafNodeLocation.LineNumber
}

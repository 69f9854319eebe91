package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acpconform/acpconform/probe"
)

// What a run reached: the operations of an agent it judged, and the MUST
// rules none of its checks reached, so that nobody takes a narrow run for
// a wide one.

// The statuses of an [Operation].
const (
	OpChecked    = "checked"     // a check of it passed or failed
	OpNotOffered = "not offered" // its checks were skipped: the agent does not offer it
	OpNotChecked = "not checked" // its checks were all skipped or deselected otherwise
)

// Operation is what a run says of one operation of an agent's API, as its
// probe op names it: ask_choice or create_elicitation.
type Operation struct {
	Op     string `json:"op"`
	Status string `json:"status"` // OpChecked, OpNotOffered or OpNotChecked
}

// agentOps are the operations an agent is judged on, in the order the
// verdict names them.
var agentOps = []string{probe.OpAskChoice, probe.OpCreateElicitation}

// Op is the operation of an agent's API that the check exercises: the
// agent's ELI checks exercise create_elicitation (the probe op of that
// name, contract area ELI's agent side), its other checks ask_choice. A
// check of a client or a relay, and the start-up check, exercise none:
// "".
func (c Check) Op() string {
	switch {
	case c.Role != "agent" || c.Area == "start-up" || c.Area == "":
		return ""
	case c.Area == "ELI":
		return probe.OpCreateElicitation
	}
	return probe.OpAskChoice
}

// Operations says, for a run with checks of an agent, what it judged of
// each operation of the agent's API; nil for a run without any. An
// operation some check of which ran is checked, even when other checks of
// it were skipped as not offered (shards of an agent that answers
// differently on different connections): Unreached names their rules.
func (r Run) Operations() []Operation {
	status := map[string]string{}
	for _, c := range r.Checks {
		op := c.Op()
		switch {
		case op == "":
		case c.Ran():
			status[op] = OpChecked
		case c.NotOffered != "" && status[op] != OpChecked:
			status[op] = OpNotOffered
		case status[op] == "":
			status[op] = OpNotChecked
		}
	}
	if len(status) == 0 {
		return nil
	}
	var out []Operation
	for _, op := range agentOps {
		s := status[op]
		if s == "" {
			s = OpNotChecked
		}
		out = append(out, Operation{Op: op, Status: s})
	}
	return out
}

// scope is how the verdict names what a conformant run judged of an
// agent: the operations checked, then in parentheses the others and why,
// "ask_choice (create_elicitation not offered)"; "" for a run without
// agent checks, or without any operation checked.
func (r Run) scope() string {
	var checked, others []string
	for _, o := range r.Operations() {
		if o.Status == OpChecked {
			checked = append(checked, o.Op)
		} else {
			others = append(others, o.Op+" "+o.Status)
		}
	}
	if len(checked) == 0 {
		return ""
	}
	s := strings.Join(checked, " and ")
	if len(others) > 0 {
		s += " (" + strings.Join(others, ", ") + ")"
	}
	return s
}

// everyRole reports whether the run is acpconform run's, which checks a
// client and relays beside its agent. (An agent's catalogue has checks of
// the relay role too, run against the reference's own relays in-process.)
func (r Run) everyRole() bool { return r.Selection.Catalogue == "run" }

// notOfferedNote is how the verdict of a run that is not conformant says
// which operations the agent does not offer: " (create_elicitation not
// offered)", or "".
func (r Run) notOfferedNote() string {
	var ops []string
	for _, o := range r.Operations() {
		if o.Status == OpNotOffered {
			ops = append(ops, o.Op)
		}
	}
	if len(ops) == 0 {
		return ""
	}
	return " (" + strings.Join(ops, " and ") + " not offered)"
}

// Why a rule was not reached, in the order Unreached.Why lists them.
var unreachedWhy = []string{"not offered", "skipped", "deselected", "could not run", "interrupted"}

// Unreached is a MUST rule of a run that no check of it reached: none of
// the checks that cite it passed or failed.
type Unreached struct {
	Rule
	// Why says what became of its checks, from "not offered", "skipped",
	// "deselected", "could not run" and "interrupted", joined by ", ".
	Why string `json:"why"`
}

// Unreached lists the MUST rules of r.Rules (the rules its checks cite)
// of the run's role (every role for acpconform run) that no check of the
// run reached, in the contract's order: a run that
// left them out, or skipped them, says nothing of them, and a verdict of
// conformance does not cover them.
func (r Run) Unreached() []Unreached {
	var out []Unreached
	for _, rule := range r.Rules {
		// A run of one role's catalogue is not judged on the rules of the
		// others: an agent's catalogue checks the reference's own relays
		// in-process, which a command subject skips.
		if rule.Level != "MUST" || (!r.everyRole() && rule.Role != "" && r.Selection.Catalogue != "" && rule.Role != r.Selection.Catalogue) {
			continue
		}
		reached := false
		why := map[string]bool{}
		for _, c := range r.Checks {
			if !slices.Contains(c.Rules, rule.ID) {
				continue
			}
			reached = reached || c.Ran()
			switch {
			case c.NotOffered != "":
				why["not offered"] = true
			case c.State == StateSkipped:
				why["skipped"] = true
			case c.State == StateDeselected:
				why["deselected"] = true
			case c.State == StateError:
				why["could not run"] = true
			case c.State == StateInterrupted:
				why["interrupted"] = true
			}
		}
		if reached {
			continue
		}
		var words []string
		for _, w := range unreachedWhy {
			if why[w] {
				words = append(words, w)
			}
		}
		if len(words) == 0 {
			words = []string{"no check"}
		}
		out = append(out, Unreached{Rule: rule, Why: strings.Join(words, ", ")})
	}
	return out
}

// unreachedGroups is the IDs of the unreached rules by why, the reasons
// in the order they first come.
func unreachedGroups(us []Unreached) (whys []string, ids map[string][]string) {
	ids = map[string][]string{}
	for _, u := range us {
		if _, ok := ids[u.Why]; !ok {
			whys = append(whys, u.Why)
		}
		ids[u.Why] = append(ids[u.Why], u.ID)
	}
	return whys, ids
}

// unreachedHeading heads the list of unreached rules in every report.
func unreachedHeading(n int) string {
	return fmt.Sprintf("%d MUST %s not reached: no check of %s passed or failed, so the verdict does not cover %s",
		n, plural(n, "rule", "rules"), plural(n, "it", "theirs"), plural(n, "it", "them"))
}

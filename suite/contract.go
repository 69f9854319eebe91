package suite

import (
	_ "embed"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// contractText is the typed-choice contract (CONTRACT.md), the source of the
// registry: every rule with its ID, level and text.
//
//go:embed contract.md
var contractText string

// Level says whether a rule decides conformance.
type Level string

// The two levels of the contract.
const (
	Must   Level = "MUST"   // decides conformance
	Should Level = "SHOULD" // reported, never fails a run on its own
)

// Role is the part an implementation under test plays for a rule.
type Role string

// The three roles.
const (
	AgentRole  Role = "agent"
	ClientRole Role = "client"
	RelayRole  Role = "relay"
)

// Rule is one rule of the contract.
type Rule struct {
	ID    string `json:"id"`   // "TOK-2"
	Area  string `json:"area"` // "TOK"
	Level Level  `json:"level"`
	Role  Role   `json:"role"`
	// Source is where the rule comes from and so its level: the seed's
	// words, a file and line of ACP at schema-v1.21.0, or the harness's
	// own advice ("seed: \"...\"; ACP docs/protocol/v1/elicitation.mdx:54").
	Source string `json:"source"`
	Text   string `json:"text"` // the rule as CONTRACT.md words it, in one paragraph
}

var (
	// ruleRef is a rule's head: "- **ID (LEVEL; SOURCE)** text"; the
	// text may start on the next line.
	ruleRef = regexp.MustCompile(`^- \*\*([A-Z]{2,3}-\d+) \((MUST|SHOULD); (.+?)\)\*\*(?: (.*))?$`)
	areaOf  = regexp.MustCompile(`^([A-Z]{2,3})-`)
)

// registry is the contract's rules in order, and by ID.
type registry struct {
	rules []Rule
	byID  map[string]Rule
}

// contract reads the registry once, at first use, and freezes it: nothing
// may change it. Reading it at init would cost every start of the binary
// (a reference agent, a bridge, a mirror) 1.5 ms for what only a check
// run needs. A rule is a bullet "- **ID (LEVEL; SOURCE)** text" with its indented
// continuation lines.
var contract = sync.OnceValue(func() registry {
	reg := registry{byID: map[string]Rule{}}
	var cur *Rule
	flush := func() {
		if cur == nil {
			return
		}
		cur.Text = strings.Join(strings.Fields(cur.Text), " ")
		if cur.Text == "" {
			panic("suite: contract.md gives " + cur.ID + " no text")
		}
		if _, dup := reg.byID[cur.ID]; dup {
			panic("suite: contract.md defines " + cur.ID + " twice")
		}
		reg.rules = append(reg.rules, *cur)
		reg.byID[cur.ID] = *cur
		cur = nil
	}
	for _, line := range strings.Split(contractText, "\n") {
		if m := ruleRef.FindStringSubmatch(line); m != nil {
			flush()
			cur = &Rule{ID: m[1], Area: areaOf.FindStringSubmatch(m[1])[1], Level: Level(m[2]), Role: roleOf(m[1]), Source: m[3], Text: m[4]}
			continue
		}
		if cur != nil && strings.HasPrefix(line, "  ") {
			cur.Text += " " + line
			continue
		}
		flush()
	}
	flush()
	if len(reg.rules) == 0 {
		panic("suite: no rules in contract.md")
	}
	return reg
})

// roleOf says who a rule constrains: CLI rules and ELI-4..8 constrain clients, the rules
// of relays and the remote transport constrain relays, the rest agents.
func roleOf(id string) Role {
	switch {
	case strings.HasPrefix(id, "CLI-"), id == "ELI-4", id == "ELI-5", id == "ELI-6", id == "ELI-7", id == "ELI-8":
		return ClientRole
	case strings.HasPrefix(id, "REM-"), strings.HasPrefix(id, "REL-"), id == "RTE-5", id == "RTE-6":
		return RelayRole
	}
	return AgentRole
}

// revisionLine is one of the contract's "Revision N (date): ..." lines,
// one for each revision, oldest first.
var revisionLine = regexp.MustCompile(`(?m)^Revision (\d+) `)

// Revision is the contract's revision, as its text states it: the last of
// its revision lines; "1" when it states none, as the first did not.
func Revision() string { return revisionOf(contractText) }

func revisionOf(text string) string {
	if m := revisionLine.FindAllStringSubmatch(text, -1); m != nil {
		return m[len(m)-1][1]
	}
	return "1"
}

// schemaLine names the ACP schema release the contract follows, in its
// **Schema.** paragraph.
var schemaLine = regexp.MustCompile(`(?m)^\*\*Schema\.\*\* Wire shapes follow ACP v1 as of schema (\d+\.\d+\.\d+)`)

// Schema is the ACP schema release the contract follows, as its text
// states it, such as "1.21.0"; "" when it names none, as revisions
// before 4 did not.
func Schema() string {
	if m := schemaLine.FindStringSubmatch(contractText); m != nil {
		return m[1]
	}
	return ""
}

// Rules returns every rule, in the contract's order.
func Rules() []Rule { return append([]Rule(nil), contract().rules...) }

// Lookup returns the rule with id.
func Lookup(id string) (Rule, bool) {
	r, ok := contract().byID[id]
	return r, ok
}

// MustLookup returns the rule with id and panics for an unknown id: a
// programmer error in a scenario's declaration.
func MustLookup(id string) Rule {
	r, ok := contract().byID[id]
	if !ok {
		panic(fmt.Sprintf("suite: %q is not a CONTRACT ID", id))
	}
	return r
}

// Areas returns the areas in the contract's order.
func Areas() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range contract().rules {
		if !seen[r.Area] {
			seen[r.Area] = true
			out = append(out, r.Area)
		}
	}
	return out
}

// Pending lists the rules whose scenarios belong to later work; the
// coverage audit tolerates them and says so. It must end up empty.
var Pending = map[string]string{}

// PendingIDs returns the pending rule IDs, sorted.
func PendingIDs() []string {
	ids := make([]string, 0, len(Pending))
	for id := range Pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

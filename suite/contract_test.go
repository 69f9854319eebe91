package suite

import (
	"strings"
	"testing"
)

func TestRegistryReadsTheWholeContract(t *testing.T) {
	if got := len(Rules()); got != 71 {
		t.Errorf("%d rules, want the 60 of CONTRACT.md revision 3, SCH-7 and ELI-1..10", got)
	}
	// Revision 5: each rule names its source, and has its source's level.
	for _, r := range Rules() {
		if r.Source == "" || r.Text == "" {
			t.Errorf("%s has no source or no text: %+v", r.ID, r)
		}
	}
	for id, level := range map[string]Level{"ELI-1": Must, "ELI-2": Must, "ELI-3": Should, "ELI-4": Must, "ELI-5": Must, "ELI-7": Should, "ELI-8": Should, "ELI-9": Must, "ELI-10": Should} {
		if r := MustLookup(id); r.Level != level {
			t.Errorf("%s is %s, want %s (contract revision 5)", id, r.Level, level)
		}
	}
	if r := MustLookup("ELI-3"); !strings.HasPrefix(r.Source, "ACP docs/protocol/v1/elicitation.mdx:99-100") {
		t.Errorf("ELI-3's source = %q, want ACP's elicitation page, where agents SHOULD validate", r.Source)
	}
	for id, role := range map[string]Role{"ELI-1": AgentRole, "ELI-3": AgentRole, "ELI-4": ClientRole, "ELI-7": ClientRole, "ELI-8": ClientRole, "ELI-9": AgentRole, "ELI-10": AgentRole} {
		if r := MustLookup(id); r.Role != role || r.Area != "ELI" {
			t.Errorf("%s = %+v, want role %s in area ELI", id, r, role)
		}
	}
	if r := MustLookup("ELI-6"); r.Level != Should {
		t.Errorf("ELI-6 = %+v, want SHOULD", r)
	}
	if r := MustLookup("SCH-7"); r.Level != Should || r.Role != AgentRole || r.Area != "SCH" {
		t.Errorf("SCH-7 = %+v", r)
	}
	r := MustLookup("TOK-2")
	if r.Area != "TOK" || r.Level != Must || r.Role != AgentRole || !strings.HasPrefix(r.Text, "Every other accept is an invalid response") || !strings.HasSuffix(r.Text, "the label or the application value in place of the token.") {
		t.Errorf("TOK-2 = %+v", r)
	}
	if r := MustLookup("CLI-4"); r.Level != Should || r.Role != ClientRole {
		t.Errorf("CLI-4 = %+v", r)
	}
	if r := MustLookup("RTE-6"); r.Role != RelayRole {
		t.Errorf("RTE-6 = %+v", r)
	}
	if _, ok := Lookup("PRE-1"); ok {
		t.Error("PRE-1 has no level and promises nothing to check")
	}
	if r := MustLookup("REL-7"); r.Level != Should || r.Role != RelayRole {
		t.Errorf("REL-7 = %+v", r)
	}
	if r := MustLookup("CLI-5"); r.Level != Must || r.Role != ClientRole {
		t.Errorf("CLI-5 = %+v", r)
	}
	if Revision() != "5" {
		t.Errorf("Revision() = %q, want 5", Revision())
	}
	// Revision 4 names the schema (agentclientprotocol/agent-client-protocol,
	// tag schema-v1.21.0).
	if Schema() != "1.21.0" {
		t.Errorf("Schema() = %q, want 1.21.0", Schema())
	}
	if r := MustLookup("SES-2"); r.Level != Must || r.Role != AgentRole || r.Area != "SES" {
		t.Errorf("SES-2 = %+v", r)
	}
	want := []string{"SCH", "VAL", "DEF", "TOK", "RES", "CAP", "FB", "DEP", "RTE", "REM", "CLI", "REL", "SES", "ELI"}
	if got := Areas(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Areas() = %v, want %v", got, want)
	}
	for id := range Pending {
		if _, ok := Lookup(id); !ok {
			t.Errorf("pending %s is not a rule", id)
		}
	}
}

func TestRevision(t *testing.T) {
	for text, want := range map[string]string{
		"# The contract\n\nEvery rule has an ID.\n":                          "1",
		"# The contract\n\nRevision 2 (2026-12-01): CAP-1 made precise.\n":   "2",
		"# The contract\n\nsee Revision 3 (later) in the text, not a line\n": "1",
		"Revision 2 (2026-12-01): CAP-1.\nRevision 3 (2026-12-01): SES-1.\n": "3",
	} {
		if got := revisionOf(text); got != want {
			t.Errorf("revisionOf(%q) = %q, want %q", text, got, want)
		}
	}
}

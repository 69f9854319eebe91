package suite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// spec is a check as a report shows it, against subject.
func spec(subject, text string, line int, labels ...string) types.SpecReport {
	return types.SpecReport{
		LeafNodeType:            types.NodeTypeIt,
		ContainerHierarchyTexts: []string{subject},
		LeafNodeText:            text,
		LeafNodeLocation:        types.CodeLocation{FileName: "catalogue.go", LineNumber: line},
		LeafNodeLabels:          labels,
		State:                   types.SpecStatePassed,
	}
}

// covering is a report with one good check per rule that is not pending,
// declared against two subjects: the same check twice is one check.
func covering() types.Report {
	var r types.Report
	for _, subject := range []string{"in-process", "over stdio"} {
		for i, rule := range Rules() {
			if _, pending := Pending[rule.ID]; pending {
				continue
			}
			r.SpecReports = append(r.SpecReports, spec(subject, "checks "+rule.ID, i+1,
				"rule:"+rule.ID, CheckLabel(rule.ID, "checks-"+strings.ToLower(rule.ID))))
		}
	}
	return r
}

func TestAuditPassesAGoodCatalogue(t *testing.T) {
	if err := Audit(covering()); err != nil {
		t.Fatalf("Audit of a good catalogue: %v", err)
	}
}

func TestAuditCatchesBadCheckIDs(t *testing.T) {
	long := strings.Repeat("x", MaxSlug+1)
	for _, tc := range []struct {
		name string
		bad  types.SpecReport
		want string
	}{
		{"no check ID", spec("in-process", "cites a rule only", 900, "rule:TOK-2"),
			`"in-process cites a rule only" has 0 check IDs [], want exactly one`},
		{"two check IDs", spec("in-process", "has two IDs", 900, "rule:TOK-2", "check:TOK-2:one", "check:TOK-2:two"),
			`"in-process has two IDs" has 2 check IDs ["TOK-2/one" "TOK-2/two"], want exactly one`},
		{"another rule than the first", spec("in-process", "names its second rule", 900, "rule:TOK-2", "rule:DEF-3", "check:DEF-3:second"),
			`the check ID "DEF-3/second" names DEF-3, but the check's first rule is TOK-2`},
		{"no slug", spec("in-process", "has no slug", 900, "rule:TOK-2", "check:TOK-2"),
			`the check ID "TOK-2" is not RULE/slug`},
		{"a slug not kebab-case", spec("in-process", "has a bad slug", 900, "rule:TOK-2", "check:TOK-2:Leading_Zero"),
			`the slug of "TOK-2/Leading_Zero" is not kebab-case`},
		{"a double dash", spec("in-process", "has a double dash", 900, "rule:TOK-2", "check:TOK-2:leading--zero"),
			`the slug of "TOK-2/leading--zero" is not kebab-case`},
		{"a slug too long", spec("in-process", "has a long slug", 900, "rule:TOK-2", "check:TOK-2:"+long),
			fmt.Sprintf(`the slug of "TOK-2/%s" has 41 characters, more than 40`, long)},
		{"an ID taken", spec("in-process", "another check", 900, "rule:TOK-2", "check:TOK-2:checks-tok-2"),
			`two checks are TOK-2/checks-tok-2: "in-process checks TOK-2" (catalogue.go:`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := covering()
			r.SpecReports = append(r.SpecReports, tc.bad)
			err := Audit(r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Audit = %v, want it to say %s", err, tc.want)
			}
		})
	}
}

func TestAuditSeesTheSameTextElsewhereAsAnotherCheck(t *testing.T) {
	r := covering()
	moved := r.SpecReports[0]
	moved.ContainerHierarchyTexts = []string{"over WebSocket"}
	moved.LeafNodeLocation.LineNumber = 900
	r.SpecReports = append(r.SpecReports, moved)
	if err := Audit(r); err == nil || !strings.Contains(err.Error(), "two checks are ") {
		t.Errorf("Audit = %v, want two checks of one ID", err)
	}
}

func TestCheckID(t *testing.T) {
	if id, ok := CheckID(CheckLabel("TOK-2", "leading-zero")); !ok || id != "TOK-2/leading-zero" {
		t.Errorf("CheckID(CheckLabel) = %q, %v", id, ok)
	}
	if _, ok := CheckID("rule:TOK-2"); ok {
		t.Error("a rule label is no check label")
	}
	labels := []string{"rule:TOK-2", CheckLabel("TOK-2", "leading-zero")}
	for filter, want := range map[string]bool{
		`/^check:TOK-2:lead/`:                    true,
		`/^check:TOK-2:/`:                        true,
		`/^check:TOK-1:/`:                        false,
		`check: containsAny TOK-2:leading-zero`:  true,
		`check: containsAny TOK-2:leading-zeros`: false,
	} {
		f, err := types.ParseLabelFilter(filter)
		if err != nil {
			t.Errorf("%s: %v", filter, err)
			continue
		}
		if got := f(labels); got != want {
			t.Errorf("%s selects %q: %v, want %v", filter, labels, got, want)
		}
	}
}

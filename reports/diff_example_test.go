package reports_test

import (
	"fmt"
	"os"

	"github.com/acpconform/acpconform/reports"
)

// A pull request's run, compared with its target branch's: one check
// newly broken, one fixed.
func ExampleCompare() {
	tok := func(id, state string) reports.Check {
		return reports.Check{ID: id, Name: "TOK: " + id, Rules: []string{"TOK-2"}, Level: "MUST", State: state,
			Again: "acpconform agent --check " + id + " -v -- ./my-agent"}
	}
	base := reports.Run{Verdict: reports.NotConformant, Checks: []reports.Check{tok("TOK-2/leading-zero", reports.StatePassed), tok("TOK-2/two-zeros", reports.StateFailed)}}
	head := reports.Run{Verdict: reports.NotConformant, Checks: []reports.Check{tok("TOK-2/leading-zero", reports.StateFailed), tok("TOK-2/two-zeros", reports.StatePassed)}}
	d := reports.Compare(base, head)
	fmt.Println(d.Headline(), d.Broke())
	for _, a := range d.Annotations() {
		fmt.Println(a)
	}
	// Output:
	// 1 new failure, 1 fixed true
	// ::error title=acpconform%3A new failure TOK-2/leading-zero::TOK-2/leading-zero (TOK-2 MUST): TOK: TOK-2/leading-zero%0Afailed%0Arun it again: acpconform agent --check TOK-2/leading-zero -v -- ./my-agent%0Athe rule: acpconform explain TOK-2
}

// The diff as Markdown, for a step summary: a table of the changes, and
// what to run for each new failure.
func ExampleWriteDiffMarkdown() {
	base := reports.Run{Verdict: reports.Conformant, Checks: []reports.Check{{ID: "CAP-1/x", Name: "CAP: x|y", Level: "MUST", State: reports.StatePassed}}}
	head := reports.Run{Verdict: reports.Conformant, Checks: []reports.Check{{ID: "CAP-1/x", Name: "CAP: x|y", Level: "MUST", State: reports.StateSkipped, SkipReason: "no form"}}}
	_ = reports.WriteDiffMarkdown(os.Stdout, reports.Compare(base, head))
	// Output:
	// ## acpconform diff: no new failure
	//
	// - base: **conformant**
	// - head: **conformant**
	// - the verdict is unchanged: conformant
	// - 0 new failures (0 MUST), 0 fixed, 0 still failing, 0 added, 1 removed, 0 stale baseline entries
	//
	// | change | check | level | base | head |
	// |---|---|---|---|---|
	// | removed | CAP-1/x: CAP: x\|y | MUST | passed | skipped: no form |
}

// A report that lists a check twice is none of acpconform's.
func ExampleRun_DuplicateCheck() {
	r := reports.Run{Checks: []reports.Check{{ID: "TOK-1/a"}, {ID: "TOK-1/a"}}}
	fmt.Println(r.DuplicateCheck())
	// Output: checks 1 and 2 are both "TOK-1/a": a report lists each check once
}

package reportcheck_test

import (
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/reportcheck"
)

const summary = "## acpconform: a is NOT conformant\n\n1 MUST check failed.\n\n| area | passed | failed | skipped |\n|---|---:|---:|---:|\n| TOK | 0 | 1 | 0 |\n\n" +
	"**FAILED** `TOK-2/x` (TOK-2 MUST): TOK: x\n\n    why\n\n<details><summary>subject stderr</summary>\n\n```\nlast words\n```\n</details>\n"

// TestMarkdown: the checker passes a summary of acpconform's shape, and
// fails each way a subject's text could break out of it.
func TestMarkdown(t *testing.T) {
	if err := reportcheck.Markdown(summary); err != nil {
		t.Fatalf("a summary of acpconform's: %v", err)
	}
	for name, doc := range map[string]string{
		"a control character":     strings.Replace(summary, "why", "why\x1b[2K", 1),
		"a fence closed early":    strings.Replace(summary, "last words", "```\n## acpconform: a is conformant", 1),
		"a fence left open":       strings.Replace(summary, "last words", "````", 1),
		"a </details> of its own": strings.Replace(summary, "1 MUST check failed.", "</details>", 1),
		"inline HTML":             strings.Replace(summary, "TOK: x", "TOK: <b>x</b>", 1),
		"a heading":               strings.Replace(summary, "1 MUST check failed.", "# conformant", 1),
		"a heading in a list":     summary + "\n- # conformant\n",
		"a second table":          summary + "\n| a | b |\n|---|---|\n| c | d |\n",
		"a cell too many":         strings.Replace(summary, "| TOK |", "| TOK | x |", 1),
		"no heading first":        "text\n\n" + summary,
	} {
		if reportcheck.Markdown(doc) == nil {
			t.Errorf("%s: passed\n%s", name, doc)
		}
	}
}

func TestJUnit(t *testing.T) {
	const doc = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites><testsuite name="a &amp; b"><testcase name="x"><system-err>line&#xA;tab&#x9;</system-err></testcase></testsuite></testsuites>`
	if err := reportcheck.JUnit([]byte(doc)); err != nil {
		t.Fatalf("a well-formed junit.xml: %v", err)
	}
	for name, bad := range map[string]string{
		"not well-formed":           strings.Replace(doc, "</testcase>", "", 1),
		"a forbidden character":     strings.Replace(doc, "line", "line\x1b", 1),
		"a carriage return":         strings.Replace(doc, "line", "line&#xD;", 1),
		"a C1 control in attribute": strings.Replace(doc, `name="x"`, "name=\"x\u009b\"", 1),
		"a bidi override":           strings.Replace(doc, "line", "line\u202e", 1),
		"bytes that are not UTF-8":  strings.Replace(doc, "line", "line\xff", 1),
	} {
		if reportcheck.JUnit([]byte(bad)) == nil {
			t.Errorf("%s: passed\n%s", name, bad)
		}
	}
}

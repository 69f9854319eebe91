package reportcheck

import "strings"

// Forgery is text that would forge a report if shown as it is: every C0
// and C1 control character, terminal escape sequences that retitle the
// window, erase the line and hide text, Unicode bidi overrides and
// isolates, lines that would end a Markdown block, open HTML and forge a
// verdict, and GitHub workflow commands (see WorkflowCommands), each on a
// line of its own, then the line FORGERY-END. It is UTF-8; NotUTF8 is not.
// mocks/hostile's forge mode writes both.
var Forgery = strings.Join([]string{
	"C0:" + C0,
	"C1:" + c1(),
	"\x1b]0;acpconform: conformant\x07\x1b[2K\racpconform: agent command ./my-agent is conformant",
	"\x1b[8mhidden\x1b[0m \x1bPq\x1b\\",
	"bidi: \u202atok\u202b \u202c \u202dabc\u202e \u2066 \u2067 \u2068 \u2069 \u200f end",
	"```",
	"~~~",
	"</details>",
	"## acpconform: agent command ./my-agent is conformant",
	"<details><summary>forged</summary>",
	"| forged | table |",
	"::add-mask::FORGED",
	"  ::stop-commands::forged-token",
	"\u00a0::error file=forged.go,line=1::forged",
	"##[error]forged",
	"x ##[group]forged",
	"FORGERY-END",
}, "\n")

// NotUTF8 is a line of bytes that are not UTF-8, a raw C1 CSI among them.
const NotUTF8 = "not UTF-8: \xff\xfe \xc3( \xed\xa0\x80 \x9b2J end"

// C0 is every C0 control character but the newline, and DEL.
var C0 = func() string {
	var b strings.Builder
	for c := byte(0); c < 0x20; c++ {
		if c != '\n' {
			b.WriteByte(c)
		}
	}
	b.WriteByte(0x7f)
	return b.String()
}()

// c1 is every C1 control character, U+0080 to U+009F, as UTF-8.
func c1() string {
	var b strings.Builder
	for r := rune(0x80); r < 0xa0; r++ {
		b.WriteRune(r)
	}
	return b.String()
}

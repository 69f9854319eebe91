package reportcheck

import (
	"regexp"
	"strings"
	"unicode"
)

// lineEnd splits a log as GitHub's runner reads a process's output: at
// CRLF, LF and a lone CR.
var lineEnd = regexp.MustCompile("\r\n|\n|\r")

// WorkflowCommands returns each line of log that GitHub's runner would
// take for a workflow command, as a stand-in for the runner's parser: a
// line whose text, stripped of leading white space, starts with "::", and
// a line that holds "##[" anywhere (the older syntax). A job log that
// shows a subject's words must give none but the commands acpconform
// writes on purpose.
func WorkflowCommands(log string) []string {
	var commands []string
	for _, line := range lineEnd.Split(log, -1) {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			commands = append(commands, line)
		}
	}
	return commands
}

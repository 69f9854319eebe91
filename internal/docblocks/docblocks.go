// Package docblocks finds the shell blocks of Markdown documents and the
// commands in them, so that a test can run what the documents show and
// check the output they say it prints.
//
// The convention (docs/README.md): a ```console block holds `$ command`
// lines, each followed by the output it prints; a ```sh block holds
// commands only, each expected to exit 0. A command that exits otherwise
// says so in a comment, `# exits 4`. A block that cannot run has the line
// `<!-- not run: REASON -->` immediately before its fence. Every fence
// names its language: an untagged fence is an error, so that a command
// cannot hide in a block nobody runs.
package docblocks

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Block is one ```sh or ```console block.
type Block struct {
	Line     int       // the line of its opening fence, from 1
	Lang     string    // "sh" or "console"
	NotRun   string    // the REASON of the marker before it; "" when it runs
	Commands []Command // in order
}

// Command is one command of a block.
type Command struct {
	Line int    // the line it starts on, from 1
	Text string // the command as the shell reads it, continuation lines joined with newlines
	Exit int    // the exit status it must end with: 0 unless a `# exits N` comment says otherwise
	// Want is the output a console block shows after the command (stdout
	// and stderr as a terminal shows them), lines ending in "\n", trailing
	// blank lines dropped; see Match for "...". It is "" for a sh block.
	Want string
}

var (
	fence   = regexp.MustCompile("^( *)(```+|~~~+)(.*)$")
	notRun  = regexp.MustCompile(`^<!--\s*not run:(.*?)-->\s*$`)
	exitsRe = regexp.MustCompile(`#\s*exits (\d+)\b`)
)

// shellLangs are the languages whose blocks hold commands; the ones other
// than sh and console are refused so that the convention has one spelling.
var shellLangs = map[string]bool{"sh": true, "console": true, "bash": false, "shell": false, "shell-session": false, "zsh": false}

// Parse returns the shell blocks of the Markdown document src, named name
// in errors. It fails on a fence without a language, a shell block in
// another spelling than sh or console, a not-run marker without a reason
// and an unclosed fence, naming each by name:line.
func Parse(name string, src []byte) ([]Block, error) {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var blocks []Block
	var errs []string
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, marker, lang := m[1], m[2], strings.TrimSpace(m[3])
		start := i
		var body []string
		closed := false
		for i++; i < len(lines); i++ {
			t := strings.TrimPrefix(lines[i], indent)
			if strings.HasPrefix(strings.TrimLeft(t, " "), marker) && strings.TrimSpace(strings.TrimLeft(t, " ")[len(marker):]) == "" {
				closed = true
				break
			}
			body = append(body, t)
		}
		if !closed {
			errs = append(errs, fmt.Sprintf("%s:%d: a fence that is never closed", name, start+1))
			break
		}
		if f := strings.Fields(lang); len(f) > 0 {
			lang = f[0]
		}
		if lang == "" {
			errs = append(errs, fmt.Sprintf("%s:%d: a fence without a language: ```text for output, ```sh or ```console for commands", name, start+1))
			continue
		}
		ok, shell := shellLangs[lang]
		if !shell {
			continue
		}
		if !ok {
			errs = append(errs, fmt.Sprintf("%s:%d: ```%s: write ```sh (commands) or ```console ($ commands and their output)", name, start+1, lang))
			continue
		}
		b := Block{Line: start + 1, Lang: lang}
		if start > 0 {
			if nm := notRun.FindStringSubmatch(strings.TrimSpace(lines[start-1])); nm != nil {
				b.NotRun = strings.TrimSpace(nm[1])
				if b.NotRun == "" {
					errs = append(errs, fmt.Sprintf("%s:%d: a not-run marker without a reason", name, start))
					continue
				}
			}
		}
		var err error
		if lang == "sh" {
			b.Commands = shCommands(body, start+2)
		} else {
			b.Commands, err = consoleCommands(body, start+2)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s:%v", name, err))
			continue
		}
		if len(b.Commands) == 0 {
			errs = append(errs, fmt.Sprintf("%s:%d: a ```%s block without a command", name, start+1, lang))
			continue
		}
		blocks = append(blocks, b)
	}
	if len(errs) > 0 {
		return blocks, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return blocks, nil
}

// shCommands splits a sh block into commands: one a line, a line ending
// in a backslash continued by the next; blank lines and comment lines are
// none.
func shCommands(body []string, first int) []Command {
	var cmds []Command
	for i := 0; i < len(body); i++ {
		t := strings.TrimSpace(body[i])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		c := Command{Line: first + i, Text: body[i]}
		for strings.HasSuffix(body[i], `\`) && i+1 < len(body) {
			i++
			c.Text += "\n" + body[i]
		}
		c.Exit = exitStatus(c.Text)
		cmds = append(cmds, c)
	}
	return cmds
}

// consoleCommands splits a console block into its `$ ` commands and the
// output shown after each.
func consoleCommands(body []string, first int) ([]Command, error) {
	var cmds []Command
	for i := 0; i < len(body); i++ {
		line := body[i]
		if !strings.HasPrefix(line, "$ ") {
			if len(cmds) == 0 {
				if strings.TrimSpace(line) == "" {
					continue
				}
				return nil, fmt.Errorf("%d: output before the first `$ ` command", first+i)
			}
			cmds[len(cmds)-1].Want += line + "\n"
			continue
		}
		c := Command{Line: first + i, Text: strings.TrimPrefix(line, "$ ")}
		for strings.HasSuffix(body[i], `\`) && i+1 < len(body) {
			i++
			c.Text += "\n" + body[i]
		}
		c.Exit = exitStatus(c.Text)
		cmds = append(cmds, c)
	}
	for i := range cmds {
		cmds[i].Want = strings.TrimRight(cmds[i].Want, "\n")
		if cmds[i].Want != "" {
			cmds[i].Want += "\n"
		}
	}
	return cmds, nil
}

// exitStatus is the N of a `# exits N` comment in cmd, or 0.
func exitStatus(cmd string) int {
	m := exitsRe.FindStringSubmatch(cmd)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

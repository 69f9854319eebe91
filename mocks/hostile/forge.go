//go:build unix

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/internal/reportcheck"
)

// The forge mode's text (see reportcheck.Forgery).
var (
	forgery = reportcheck.Forgery
	notUTF8 = reportcheck.NotUTF8
)

// forge writes the forgery and notUTF8 on stderr once started, answers
// initialize and session/new, and answers each prompt as args[0] says,
// then writes the forgery on stderr again and exits 1:
//
//	error     an error whose message is the forgery (the default)
//	outcome   an outcome report whose outcome is the forgery, and end_turn
//	not-json  a line of notUTF8 and raw control characters
//	labels    an elicitation/create whose question is the forgery and whose
//	          labels are its lines, then (the answer read) a declined outcome
//
// The forgery goes in its bytes as they are, only what JSON cannot hold
// escaped. The harness shows it, the end of the process and its stderr.
func forge(args []string) error {
	how := "error"
	if len(args) > 0 {
		how = args[0]
	}
	fmt.Fprintf(os.Stderr, "%s\n%s\n", forgery, notUTF8)
	return serve(nil, func(p *peer, m message) error {
		var lines []string
		switch how {
		case "error":
			lines = []string{`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32000,"message":"` + rawJSON(forgery) + `"}}`}
		case "outcome":
			lines = []string{
				`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sessionOf(m) + `","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + rawJSON(`{"acpconform":1,"outcome":"`+rawJSON(forgery)+`"}`) + `"}}}}`,
				`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"stopReason":"end_turn"}}`,
			}
		case "not-json":
			lines = []string{notUTF8 + " " + reportcheck.C0[1:9] + "\x1b[2K\r"}
		case "labels":
			if err := askForged(p, sessionOf(m)); err != nil {
				return err
			}
			if err := p.outcome(m, `{"acpconform":1,"outcome":"declined"}`); err != nil {
				return err
			}
		default:
			return fmt.Errorf("forge: %q is none of error, outcome, not-json and labels", how)
		}
		for _, line := range lines {
			if err := p.writeLine([]byte(line)); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "%s\n%s\n", forgery, notUTF8)
		os.Exit(1)
		return nil
	})
}

// askForged sends an elicitation/create whose question is the forgery and
// whose choices are labelled with its lines, and reads on until it is
// answered (or stdin ends), as an agent that asks waits for its answer.
func askForged(p *peer, session string) error {
	var options []string
	for i, label := range strings.Split(forgery, "\n") {
		options = append(options, `{"const":"choice_`+strconv.Itoa(i)+`","title":"`+rawJSON(label)+`"}`)
	}
	err := p.writeLine([]byte(`{"jsonrpc":"2.0","id":"forged-ask","method":"elicitation/create","params":{"sessionId":"` + session +
		`","mode":"form","message":"` + rawJSON(forgery) + `","requestedSchema":{"type":"object","properties":{"choice":{"type":"string","title":"` +
		rawJSON(forgery) + `","oneOf":[` + strings.Join(options, ",") + `]}},"required":["choice"]}}}`))
	if err != nil {
		return err
	}
	for {
		m, ok := p.read()
		if !ok || m.Method == "" && string(m.ID) == `"forged-ask"` {
			return nil
		}
	}
}

// rawJSON is s as a JSON string's contents with only what JSON cannot hold
// escaped (quotes, backslashes, C0 controls): the rest, invalid UTF-8 and
// <, > and & included, goes as it is.
func rawJSON(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteString(strconv.FormatInt(int64(c)>>4, 16))
			b.WriteString(strconv.FormatInt(int64(c)&15, 16))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/kit/probeagent"
	"github.com/acpconform/acpconform/probe"
)

// sayOutcome answers every probe with args[0] as its outcome, as it is.
func sayOutcome(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("outcome: want one argument, the outcome's text")
	}
	return serve(nil, func(p *peer, m message) error { return p.outcome(m, args[0]) })
}

// deepOutcome declines every probe with an outcome that nests args[0]
// levels, by an unknown member: {"acpconform":1,"outcome":"declined",
// "detail":[[...]]}.
func deepOutcome(args []string) error {
	depth := 0
	if len(args) == 1 {
		depth, _ = strconv.Atoi(args[0])
	}
	if depth < 2 {
		return fmt.Errorf("deep-outcome: want one argument, a depth of 2 or more")
	}
	text := `{"acpconform":1,"outcome":"declined","detail":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "}"
	return serve(nil, func(p *peer, m message) error { return p.outcome(m, text) })
}

// spellings write an integer as a JSON library other than Go's might, by
// value the same integer.
var spellings = map[string]func(int64) string{
	// as Python's json writes a float: 0.0, 1.0, -32601.0
	"fraction": func(n int64) string { return strconv.FormatInt(n, 10) + ".0" },
	// 0e5, 1.0e0, -3.2601e4
	"exponent": func(n int64) string {
		if n == 0 {
			return "0e5"
		}
		sign, digits := "", strconv.FormatInt(n, 10)
		if n < 0 {
			sign, digits = "-", digits[1:]
		}
		return sign + digits[:1] + "." + strings.TrimRight(digits[1:], "0") + "0e" + strconv.Itoa(len(digits)-1)
	},
	// -0, 10e-1, -326010e-1
	"tenths": func(n int64) string {
		if n == 0 {
			return "-0"
		}
		return strconv.FormatInt(n, 10) + "0e-1"
	},
}

// respeltIntegers serves the reference probe agent, writing the integer
// members of its outcomes (acpconform, index, code) as args[0] says, one
// of spellings: a correct agent whose JSON library writes integers its
// own way.
func respeltIntegers(args []string) error {
	var spell func(int64) string
	if len(args) == 1 {
		spell = spellings[args[0]]
	}
	if spell == nil {
		return fmt.Errorf("respelt-integers: want one argument, fraction, exponent or tenths")
	}
	r, w := io.Pipe()
	conn := probeagent.Serve(w, os.Stdin, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	go func() {
		<-conn.Done()
		w.Close()
	}()
	frames := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := frames.ReadBytes('\n')
		if len(line) > 0 {
			if _, err := os.Stdout.Write(respell(line, spell)); err != nil {
				return fmt.Errorf("write stdout: %w", err)
			}
		}
		if err != nil {
			return nil
		}
	}
}

// respell rewrites the outcome in a frame, when it carries one, with its
// integer members spelt by spell; any other frame stays as it is.
func respell(frame []byte, spell func(int64) string) []byte {
	var f map[string]any
	dec := json.NewDecoder(strings.NewReader(string(frame)))
	dec.UseNumber()
	if dec.Decode(&f) != nil || f["method"] != "session/update" {
		return frame
	}
	params, _ := f["params"].(map[string]any)
	update, _ := params["update"].(map[string]any)
	content, _ := update["content"].(map[string]any)
	text, _ := content["text"].(string)
	if update["sessionUpdate"] != "agent_message_chunk" || !probe.IsOutcome(text) {
		return frame
	}
	var out map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &out) != nil {
		return frame
	}
	for _, name := range []string{"acpconform", "index", "code"} {
		if n, err := strconv.ParseInt(string(out[name]), 10, 64); err == nil {
			out[name] = json.RawMessage(spell(n))
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return frame
	}
	content["text"] = string(b)
	if frame, err = json.Marshal(f); err != nil {
		panic(err) // it was decoded from JSON a moment ago
	}
	return append(frame, '\n')
}

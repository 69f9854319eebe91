//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// peer is this program's end of an ACP connection on stdio: one JSON-RPC
// message a line.
type peer struct {
	in *bufio.Reader
	mu sync.Mutex // one line at a time on stdout
}

func newPeer() *peer { return &peer{in: bufio.NewReaderSize(os.Stdin, 64<<10)} }

// message is an incoming request, notification or response.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"` // of a response, which the client modes read
}

func (m message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// response is an outgoing answer; ID is raw so that it can be anything.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   any             `json:"error,omitempty"`
}

// initResult is a plain agent's answer to initialize.
var initResult = map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}, "authMethods": []any{}}

// read returns the next message, skipping lines that are not one; false at
// the end of stdin. Every request is announced on $HOSTILE_EVENTS.
func (p *peer) read() (message, bool) {
	for {
		line, err := p.in.ReadBytes('\n')
		var m message
		if len(line) > 0 && json.Unmarshal(line, &m) == nil {
			if m.isRequest() {
				event(m.Method)
			}
			return m, true
		}
		if err != nil {
			return message{}, false
		}
	}
}

// drain reads stdin to its end, answering nothing.
func (p *peer) drain() {
	for {
		if _, ok := p.read(); !ok {
			return
		}
	}
}

// writeLine writes line and a newline to stdout in one write.
func (p *peer) writeLine(line []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := os.Stdout.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write stdout: %w", err)
	}
	return nil
}

func (p *peer) send(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("marshal: %w", err)
	}
	return p.writeLine(line)
}

func (p *peer) reply(id json.RawMessage, result any) error {
	return p.send(response{JSONRPC: "2.0", ID: id, Result: result})
}

// chunkLine is a session/update agent_message_chunk carrying text.
func chunkLine(session, text string) ([]byte, error) {
	return json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
		"sessionId": session,
		"update":    map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}},
	}})
}

// outcome reports text as the probe outcome of prompt m and ends the turn.
func (p *peer) outcome(m message, text string) error {
	line, err := chunkLine(sessionOf(m), text)
	if err != nil {
		return err
	}
	if err := p.writeLine(line); err != nil {
		return err
	}
	return p.reply(m.ID, map[string]string{"stopReason": "end_turn"})
}

func sessionOf(m message) string {
	var params struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(m.Params, &params)
	return params.SessionID
}

// serve plays an agent: it answers initialize (as onInitialize says, when
// set) and session/new, hands session/prompt to onPrompt (nil: never
// answered), and refuses other requests, until stdin ends.
// sessionRefusal, when set, is the message of serve's -32000 answer to
// every session/new, as an agent that wants a login first does.
var sessionRefusal string

// refuseSessions answers initialize, and session/new with -32000
// "Authentication required", as real agents without credentials do.
func refuseSessions([]string) error {
	sessionRefusal = "Authentication required"
	return serve(nil, nil)
}

// neverAsk answers every prompt with a text and end_turn, asking nothing.
func neverAsk([]string) error {
	return serve(nil, func(p *peer, m message) error {
		line, err := chunkLine(sessionOf(m), "Sure, deploying to production.")
		if err == nil {
			err = p.writeLine(line)
		}
		if err == nil {
			err = p.reply(m.ID, map[string]string{"stopReason": "end_turn"})
		}
		return err
	})
}

func serve(onInitialize, onPrompt func(*peer, message) error) error {
	p := newPeer()
	for {
		m, ok := p.read()
		if !ok {
			return nil
		}
		if !m.isRequest() {
			continue
		}
		var err error
		switch {
		case m.Method == "initialize" && onInitialize != nil:
			err = onInitialize(p, m)
		case m.Method == "initialize":
			err = p.reply(m.ID, initResult)
		case m.Method == "session/new" && sessionRefusal != "":
			err = p.send(response{JSONRPC: "2.0", ID: m.ID, Error: map[string]any{"code": -32000, "message": sessionRefusal}})
		case m.Method == "session/new":
			err = p.reply(m.ID, map[string]string{"sessionId": "hostile-session-1"})
		case m.Method == "session/prompt":
			if onPrompt != nil {
				err = onPrompt(p, m)
			}
		default:
			err = p.send(response{JSONRPC: "2.0", ID: m.ID, Error: map[string]any{"code": -32601, "message": "Method not found"}})
		}
		if err != nil {
			return err
		}
	}
}

// badInitialize answers initialize with answer, then reads stdin to its
// end answering nothing more: the harness has to give up by itself, at once.
func badInitialize(answer func(*peer, message) error) func([]string) error {
	return func([]string) error {
		p := newPeer()
		for {
			m, ok := p.read()
			if !ok {
				return nil
			}
			if m.isRequest() && m.Method == "initialize" {
				if err := answer(p, m); err != nil {
					return err
				}
			}
		}
	}
}

func exitAfterInitialize([]string) error {
	return serve(func(p *peer, m message) error {
		if err := p.reply(m.ID, initResult); err != nil {
			return err
		}
		os.Exit(0) // stdout is unbuffered: the answer is in the pipe
		return nil
	}, nil)
}

func segvOnPrompt([]string) error {
	return serve(nil, func(*peer, message) error {
		segv()
		return nil
	})
}

func flood([]string) error {
	count := envInt("HOSTILE_COUNT", 12000)
	size := envInt("HOSTILE_SIZE", 1<<20)
	return serve(nil, func(p *peer, m message) error {
		line, err := chunkLine(sessionOf(m), strings.Repeat("x", size))
		if err != nil {
			return err
		}
		go func() { // while the harness lets it: reading goes on meanwhile
			for i := 0; i < count; i++ {
				if p.writeLine(line) != nil {
					return
				}
			}
		}()
		return nil
	})
}

func hugeNumber([]string) error {
	text := `{"acpconform":1,"outcome":"accepted","index":0,"value":1` + strings.Repeat("0", 1_000_000) + `}`
	return serve(nil, func(p *peer, m message) error { return p.outcome(m, text) })
}

func setsidChild([]string) error {
	if err := spawn(childSetsid, true); err != nil {
		return err
	}
	return serve(nil, func(p *peer, m message) error {
		return p.outcome(m, `{"acpconform":1,"outcome":"declined"}`)
	})
}

func daemon([]string) error {
	if err := spawn(childDaemonizer, false); err != nil {
		return err
	}
	return serve(nil, func(p *peer, m message) error {
		return p.outcome(m, `{"acpconform":1,"outcome":"declined"}`)
	})
}

// hang answers initialize and session/new, and then nothing: not the
// prompt, not SIGTERM, not the end of stdin.
func hang([]string) error {
	signal.Ignore(syscall.SIGTERM)
	if err := serve(nil, nil); err != nil {
		return err
	}
	time.Sleep(forever)
	return nil
}

// ignoreTerm is hang with a child that ignores SIGTERM as well.
func ignoreTerm(args []string) error {
	signal.Ignore(syscall.SIGTERM)
	if err := spawn(childIgnoreTerm, false); err != nil {
		return err
	}
	return hang(args)
}

// family is ignore-term with a grandchild that left the process group:
// three generations, announced once all are up.
func family(args []string) error {
	signal.Ignore(syscall.SIGTERM)
	if err := spawn(childParent, false); err != nil {
		return err
	}
	event("family")
	return hang(args)
}

// mute answers nothing at all and outlives SIGTERM and the end of stdin.
func mute([]string) error {
	signal.Ignore(syscall.SIGTERM)
	newPeer().drain()
	time.Sleep(forever)
	return nil
}

// envInt is the integer in $name, or def when it is unset.
func envInt(name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hostile: $%s: %v\n", name, err)
		os.Exit(2)
	}
	return n
}

// event appends "WHAT PID" to $HOSTILE_EVENTS, when set: a test can wait
// on it (a FIFO, say) for this process to reach a point.
func event(what string) {
	path := os.Getenv("HOSTILE_EVENTS")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hostile: $HOSTILE_EVENTS: %v\n", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %d\n", what, os.Getpid())
}

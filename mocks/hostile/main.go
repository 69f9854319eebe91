//go:build unix

// Command hostile is an ACP subject that misbehaves on purpose, one way per
// mode, so that the tests of acpconform's CLI can check how the harness
// copes: it speaks just enough ACP by hand (one JSON-RPC message a line on
// stdio) to get where each misbehaviour matters.
//
//	hostile MODE [ARGS...]   (or HOSTILE_MODE=MODE hostile [ARGS...])
//
// Agent modes:
//
//	exit-after-initialize  answers initialize, then exits 0 at once
//	last-words             prints LAST-WORDS on stderr and exits 5, no ACP at all
//	segv-on-prompt         answers initialize and session/new; dies by SIGSEGV on session/prompt
//	not-json               answers initialize with the line "hello world", then reads until EOF
//	batch                  answers initialize inside a JSON array (a batch), then reads until EOF
//	wrong-id               answers initialize with its id + 1000, then reads until EOF
//	null-id                answers initialize with "id": null, then reads until EOF
//	huge-line              answers initialize with one 50 MB line, then reads until EOF
//	refuse-sessions        answers initialize; answers session/new with -32000 "Authentication required"
//	never-ask              answers every prompt with a text and end_turn, asking nothing
//	forge [error|outcome|not-json|labels]
//	                       writes control characters, escape sequences, bidi overrides,
//	                       bytes that are not UTF-8, Markdown breakouts and workflow
//	                       commands (reportcheck.Forgery) on stderr; answers every prompt
//	                       with them in an error, as its outcome, in a line that is not
//	                       JSON or in the question and labels of an elicitation/create
//	                       (then declines), and exits 1
//	flood                  on session/prompt sends $HOSTILE_COUNT (12000) session/update
//	                       notifications of $HOSTILE_SIZE (1 MiB) bytes of text, then reads on
//	huge-number            answers every probe "accepted" with a 1 MB number as the value
//	outcome TEXT           answers every probe with TEXT as its outcome
//	deep-outcome DEPTH     declines every probe with an outcome nested DEPTH levels
//	respelt-integers fraction|exponent|tenths
//	                       the reference probe agent, writing the integers of its outcomes
//	                       as 0.0 and -32601.0, as 0e5 and 1.0e0, or as -0 and 10e-1
//	ignore-term            ignores SIGTERM, starts a child that ignores it too and sleeps,
//	                       and never answers session/prompt
//	setsid-child           declines every probe; starts a child that calls setsid() and
//	                       sleeps for minutes holding a copy of stdout
//	daemon                 declines every probe; leaves a daemon as a service manager
//	                       would: a child that calls setsid(), starts a grandchild with
//	                       nothing of its environment but HOSTILE_PIDFILE (no marker of
//	                       acpconform's) and exits; the grandchild ignores SIGTERM, SIGHUP
//	                       and SIGINT and sleeps for minutes
//	family                 ignore-term with a child that starts a grandchild, which calls
//	                       setsid() and sleeps; announces "family PID" on $HOSTILE_EVENTS
//	                       once all three are up
//	hang                   ignores SIGTERM and never answers session/prompt
//	mute                   ignores SIGTERM and never answers anything, not even initialize
//
// Relay modes (ARGS is the URL of the agent to dial):
//
//	relay-exit             exits 1 at once
//	relay-sleep            never dials; sleeps
//	relay-dial-late        dials the URL after $HOSTILE_DELAY (5s), then reads stdin until EOF
//	relay-not-json         dials the URL, writes "not json" on stdout, then reads stdin until EOF
//	relay-health-check     dials the URL and closes the connection at once, as a health check
//	                       does, then executes $HOSTILE_EXEC (split on spaces) with ARGS
//
// Client modes:
//
//	client-fail-start      counts its starts in the file $HOSTILE_COUNTER; the
//	                       $HOSTILE_FAIL_START-th start exits 1 at once, every other
//	                       one executes $HOSTILE_EXEC (split on spaces) with ARGS
//	client-capitalised     a client in test mode on stdio that answers every
//	                       elicitation/create as instructed, with its members
//	                       capitalised: {"Action":"accept","Content":{"choice":...}}
//	client-hidden-decline-content [capitalised|duplicate]
//	                       a client in test mode that answers as instructed, but an
//	                       instructed decline with content hidden behind a null:
//	                       {"action":"decline","content":{"name":"Ada"},"CONTENT":null},
//	                       or with "duplicate", behind a second "content": null
//
// With $HOSTILE_PIDFILE set, every hostile process, children included,
// appends "PID PGID MODE" to that file before it does anything else, so
// that a test can tell whether any of them outlived the harness. A process
// that starts a child waits until the child has recorded itself. With
// $HOSTILE_EVENTS set (a FIFO, say), every request a hostile agent reads is
// announced there as "METHOD PID", so that a test can act at that point.
//
// It is a Unix program, as the harness's subject commands are: it calls
// setsid, flock and kill.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

// Modes that a hostile process starts its children in.
const (
	childIgnoreTerm = "child-ignore-term" // ignores SIGTERM, sleeps
	childSetsid     = "child-setsid"      // calls setsid(), sleeps holding stdout
	childParent     = "child-parent"      // ignores SIGTERM, starts a child-setsid, sleeps
	childDaemonizer = "child-daemonizer"  // calls setsid(), starts a child-daemon with an empty environment, exits
	childDaemon     = "child-daemon"      // ignores SIGTERM, SIGHUP and SIGINT, sleeps
)

// forever is how long a sleeping hostile process sleeps: longer than any test.
const forever = 10 * time.Minute

func main() {
	args := os.Args[1:]
	mode := os.Getenv("HOSTILE_MODE")
	if len(args) > 0 && mode == "" {
		mode, args = args[0], args[1:]
	}
	if mode != childSetsid { // that child records itself in its new session
		record(mode)
	}
	run, ok := modes[mode]
	if !ok {
		fmt.Fprintf(os.Stderr, "hostile: unknown mode %q (see the package doc)\n", mode)
		os.Exit(2)
	}
	if err := run(args); err != nil {
		fmt.Fprintf(os.Stderr, "hostile %s: %v\n", mode, err)
		os.Exit(1)
	}
}

var modes = map[string]func(args []string) error{
	"exit-after-initialize": exitAfterInitialize,
	"last-words": func([]string) error {
		fmt.Fprintln(os.Stderr, "LAST-WORDS")
		os.Exit(5)
		return nil
	},
	"segv-on-prompt": segvOnPrompt,
	"not-json":       badInitialize(func(p *peer, _ message) error { return p.writeLine([]byte("hello world")) }),
	"batch": badInitialize(func(p *peer, m message) error {
		return p.send([]any{response{JSONRPC: "2.0", ID: m.ID, Result: initResult}})
	}),
	"wrong-id": badInitialize(func(p *peer, m message) error {
		var id int64
		if err := json.Unmarshal(m.ID, &id); err != nil {
			return fmt.Errorf("wrong-id: initialize id %s: %w", m.ID, err)
		}
		return p.reply(json.RawMessage(strconv.FormatInt(id+1000, 10)), initResult)
	}),
	"null-id": badInitialize(func(p *peer, m message) error { return p.reply(json.RawMessage("null"), initResult) }),
	"huge-line": badInitialize(func(p *peer, m message) error {
		return p.reply(m.ID, map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}, "padding": strings.Repeat("x", 50<<20)})
	}),
	"flood":            flood,
	"refuse-sessions":  refuseSessions,
	"never-ask":        neverAsk,
	"forge":            forge,
	"huge-number":      hugeNumber,
	"outcome":          sayOutcome,
	"deep-outcome":     deepOutcome,
	"respelt-integers": respeltIntegers,
	"ignore-term":      ignoreTerm,
	"setsid-child":     setsidChild,
	"daemon":           daemon,
	"family":           family,
	"hang":             hang,
	"mute":             mute,
	childIgnoreTerm: func([]string) error {
		signal.Ignore(syscall.SIGTERM)
		ready()
		time.Sleep(forever)
		return nil
	},
	childParent: func([]string) error {
		signal.Ignore(syscall.SIGTERM)
		if err := spawn(childSetsid, false); err != nil {
			return err
		}
		ready()
		time.Sleep(forever)
		return nil
	},
	childSetsid: func([]string) error {
		if _, err := syscall.Setsid(); err != nil {
			return fmt.Errorf("setsid: %w", err)
		}
		record(childSetsid)
		ready()
		time.Sleep(forever) // stdout, a copy of the parent's, stays open meanwhile
		return nil
	},
	childDaemonizer: func([]string) error {
		if _, err := syscall.Setsid(); err != nil {
			return fmt.Errorf("setsid: %w", err)
		}
		onlyPidfile := func(kv string) bool { return strings.HasPrefix(kv, "HOSTILE_PIDFILE=") }
		return spawnWith(childDaemon, false, onlyPidfile) // then exits: the daemon is an orphan
	},
	childDaemon: func([]string) error {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
		ready()
		time.Sleep(forever)
		return nil
	},
	"relay-exit":                    func([]string) error { os.Exit(1); return nil },
	"relay-sleep":                   func([]string) error { time.Sleep(forever); return nil },
	"relay-dial-late":               relayDialLate,
	"relay-not-json":                relayNotJSON,
	"relay-health-check":            relayHealthCheck,
	"client-fail-start":             clientFailStart,
	"client-capitalised":            clientCapitalised,
	"client-hidden-decline-content": clientHiddenDeclineContent,
}

// record appends "PID PGID MODE" to $HOSTILE_PIDFILE, in one write so that
// the lines of processes recording at once do not mix.
func record(mode string) {
	path := os.Getenv("HOSTILE_PIDFILE")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hostile: $HOSTILE_PIDFILE: %v\n", err)
		os.Exit(2)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%d %d %s\n", os.Getpid(), syscall.Getpgrp(), mode); err != nil {
		fmt.Fprintf(os.Stderr, "hostile: $HOSTILE_PIDFILE: %v\n", err)
		os.Exit(2)
	}
}

// readyFD is the descriptor a child closes once it has recorded itself and
// is in the state its parent started it for.
const readyFD = 3

// spawn starts this program as a child in mode, and returns once the child
// is ready (or gone). With holdStdout the child gets a copy of stdout.
func spawn(mode string, holdStdout bool) error {
	return spawnWith(mode, holdStdout, func(kv string) bool { return !strings.HasPrefix(kv, "HOSTILE_MODE=") })
}

// spawnWith is spawn with the variables of the environment that keep
// keeps (HOSTILE_MODE never: the child's mode is its argument).
func spawnWith(mode string, holdStdout bool, keep func(kv string) bool) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("spawn %s: %w", mode, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("spawn %s: %w", mode, err)
	}
	defer r.Close()
	var env []string
	for _, kv := range os.Environ() {
		if keep(kv) && !strings.HasPrefix(kv, "HOSTILE_MODE=") {
			env = append(env, kv)
		}
	}
	attr := &os.ProcAttr{
		Env:   env,
		Files: []*os.File{nil, nil, os.Stderr, w}, // fd readyFD is w
	}
	if holdStdout {
		attr.Files[1] = os.Stdout
	}
	_, err = os.StartProcess(self, []string{self, mode}, attr)
	w.Close()
	if err != nil {
		return fmt.Errorf("spawn %s: %w", mode, err)
	}
	var b [1]byte
	_, _ = r.Read(b[:]) // EOF: the child closed readyFD, or died
	return nil
}

// ready tells the parent this child is ready.
func ready() { _ = os.NewFile(readyFD, "ready").Close() }

// relayDialLate dials the agent at args[0] only after $HOSTILE_DELAY.
func relayDialLate(args []string) error {
	delay := 5 * time.Second
	if v := os.Getenv("HOSTILE_DELAY"); v != "" {
		var err error
		if delay, err = time.ParseDuration(v); err != nil {
			return fmt.Errorf("$HOSTILE_DELAY: %w", err)
		}
	}
	time.Sleep(delay) // the lateness is the behaviour
	conn, err := dial(args)
	if err != nil {
		return err
	}
	defer conn.CloseNow()
	newPeer().drain()
	return nil
}

// relayNotJSON dials the agent, then writes a line that is not JSON to its
// client and answers nothing.
func relayNotJSON(args []string) error {
	conn, err := dial(args)
	if err != nil {
		return err
	}
	defer conn.CloseNow()
	p := newPeer()
	if err := p.writeLine([]byte("not json")); err != nil {
		return err
	}
	p.drain()
	return nil
}

// relayHealthCheck dials the agent and closes the connection, then
// becomes $HOSTILE_EXEC, the relay proper, which dials it again.
func relayHealthCheck(args []string) error {
	conn, err := dial(args)
	if err != nil {
		return err
	}
	if err := conn.Close(websocket.StatusNormalClosure, "health check"); err != nil {
		return fmt.Errorf("close the health check: %w", err)
	}
	return execEnv(args)
}

// dial connects to the WebSocket URL args[0] and keeps the connection
// served (pings, close) until it ends.
func dial(args []string) (*websocket.Conn, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("want one argument, the agent's URL; got %q", args)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, args[0], nil)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", args[0], err)
	}
	conn.CloseRead(context.Background())
	return conn, nil
}

// clientFailStart fails its $HOSTILE_FAIL_START-th start, and becomes
// $HOSTILE_EXEC otherwise.
func clientFailStart(args []string) error {
	n, err := countStart(os.Getenv("HOSTILE_COUNTER"))
	if err != nil {
		return err
	}
	if n == envInt("HOSTILE_FAIL_START", 0) {
		fmt.Fprintf(os.Stderr, "hostile: start %d fails, as $HOSTILE_FAIL_START says\n", n)
		os.Exit(1)
	}
	return execEnv(args)
}

// execEnv executes $HOSTILE_EXEC, split on spaces, with args.
func execEnv(args []string) error {
	argv := append(strings.Fields(os.Getenv("HOSTILE_EXEC")), args...)
	if len(argv) == 0 {
		return errors.New("$HOSTILE_EXEC names no command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("$HOSTILE_EXEC: %w", err)
	}
	return syscall.Exec(path, argv, os.Environ())
}

// countStart adds one to the count in the file at path, under a lock, and
// returns the new count.
func countStart(path string) (int, error) {
	if path == "" {
		return 0, errors.New("$HOSTILE_COUNTER is unset")
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return 0, fmt.Errorf("$HOSTILE_COUNTER: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return 0, fmt.Errorf("lock %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	n := 0
	if s := strings.TrimSpace(string(data)); s != "" {
		if n, err = strconv.Atoi(s); err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
	}
	n++
	if _, err := f.WriteAt([]byte(strconv.Itoa(n)), 0); err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	return n, nil
}

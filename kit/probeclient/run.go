package probeclient

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/internal/gate"
	"github.com/acpconform/acpconform/mocks/wire"
)

// Options configure one client run.
type Options struct {
	Prompt string // the prompt's text
	// NoForm advertises no form elicitation (and so no URL elicitation).
	NoForm bool
	// NoURL advertises form elicitation only, no URL elicitation.
	NoURL bool
	// Broken is one of Brokens, or "" for the reference behaviour.
	Broken string
	// Timeout bounds the whole run.
	Timeout time.Duration
}

// Play runs one client session over a connection whose outgoing frames go
// to w and incoming ones come from r: initialize, session/new, one prompt,
// answering the agent's requests meanwhile. It returns when the prompt turn
// ends, whatever its stopReason.
func Play(ctx context.Context, w io.Writer, r io.Reader, o Options, log *slog.Logger) error {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	c := &client{advertisesForm: !o.NoForm && o.Broken != AcceptsUnadvertised, advertisesURL: !o.NoForm && !o.NoURL && o.Broken != AcceptsUnadvertisedURL, broken: o.Broken, replies: make(chan string, 16)}
	var impl acp.Client = elicitingClient{c}
	if o.Broken == Unregistered {
		impl = c // no UnstableCreateElicitation: the SDK answers -32601
	}
	if o.Broken == ContentOnDecline {
		w = &declineWithContent{w: w}
	}
	conn := gate.NewClientSideConnection(impl, w, r, log)
	if _, err := conn.Initialize(ctx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: c.capabilities(),
		ClientInfo:         &acp.Implementation{Name: "acpconform-reference-client", Version: "1"},
	}); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
	if err != nil {
		return fmt.Errorf("session/new: %w", err)
	}
	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(o.Prompt)}}); err != nil {
		return fmt.Errorf("session/prompt: %w", err)
	}
	return nil
}

const usage = `usage: acpconform reference-client [flags], or acpconform-reference-client [flags]

Plays the reference client of docs/probe.md §2 on stdin/stdout, or against a
WebSocket agent: advertises form elicitation, opens a session, sends one
prompt and answers every elicitation/create as its scripted-user instruction
("_meta": {"acpconform/user": {"action": ..., "pick": ...}}) says, refusing
one it cannot follow with -32602; without one it cancels, as a person
closing the dialog. It exits 0 when the prompt turn ends, 1 on an error.

--broken picks a variant that breaks one client rule on purpose: ` + "%s" + `.

flags:
`

// The defaults of the reference client's --prompt and --timeout, in both
// of its commands.
const (
	DefaultPrompt  = "Please ask me to choose."
	DefaultTimeout = time.Minute
)

// Check says what is wrong with o as flags gave it: a --broken that names
// no variant of Brokens.
func (o Options) Check() error {
	if o.Broken != "" && !slices.Contains(Brokens, o.Broken) {
		return fmt.Errorf("--broken %q is none of %s", o.Broken, strings.Join(Brokens, ", "))
	}
	return nil
}

// Run is what acpconform-reference-client runs (`acpconform
// reference-client`, which also starts an agent, parses its flags with
// the CLI's); args are the arguments after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reference-client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	var url string
	fs.StringVar(&o.Prompt, "prompt", DefaultPrompt, "the prompt's text")
	fs.BoolVar(&o.NoForm, "no-form", false, "advertise no form elicitation")
	fs.BoolVar(&o.NoURL, "no-url", false, "advertise form elicitation only, no URL elicitation")
	fs.StringVar(&o.Broken, "broken", "", "break one client rule on purpose: "+strings.Join(Brokens, ", "))
	fs.StringVar(&url, "websocket", "", "connect to an agent at this WebSocket URL instead of using stdio")
	fs.DurationVar(&o.Timeout, "timeout", DefaultTimeout, "bound on the whole session")
	fs.Usage = func() {
		fmt.Fprintf(stderr, usage, strings.Join(Brokens, ", "))
		fs.PrintDefaults()
	}
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "reference-client: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := o.Check(); err != nil {
		fmt.Fprintf(stderr, "reference-client: %v\n", err)
		return 2
	}
	return Main(ctx, o, url, stdin, stdout, stderr)
}

// Main plays the reference client with o, on stdin and stdout or, when url
// is set, over a WebSocket to it, logging to stderr; it returns the exit
// code: 0 when the prompt turn ended, 1 on an error.
func Main(ctx context.Context, o Options, url string, stdin io.Reader, stdout, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var w io.Writer = stdout
	var r io.Reader = stdin
	if url != "" {
		dial, cancel := context.WithTimeout(ctx, 30*time.Second)
		conn, err := wire.Dial(dial, url, wire.DialOptions{})
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "reference-client: %v\n", err)
			return 1
		}
		defer conn.Close()
		s := wire.NewSDKStream(conn)
		w, r = s, s
	}
	if err := Play(ctx, w, r, o, log); err != nil {
		fmt.Fprintf(stderr, "reference-client: %v\n", err)
		return 1
	}
	return 0
}

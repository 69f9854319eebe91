package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/suite"
)

// relEnd is one end of a relay as the REL checks play it, the client's or
// the agent's: it sends exactly the messages a check writes, with the ids
// the check picks (both ends use the same ids on purpose), and records
// every frame it receives, in order, for the check to find.
type relEnd struct {
	e      *env
	side   string // "client" or "agent"
	conn   wire.Conn
	ledger *relLedger // shared with the other end

	mu      sync.Mutex
	got     []relMsg
	more    chan struct{} // closed, and replaced, at each frame and at the end
	ended   bool
	flooded bool   // the relay sent more than the connection may hold; nothing more is kept
	why     string // how reading ended, once ended
	done    chan struct{}
}

// relMsg is one frame an end received, read as a JSON-RPC message.
type relMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`

	Size int    `json:"-"` // of the frame, in bytes
	Bad  string `json:"-"` // why the frame is no JSON object, when it is not
	Near string `json:"-"` // of a bad frame: where it goes wrong, quoted
}

func (m relMsg) isRequest(method string) bool {
	return m.Bad == "" && m.Method == method && len(m.ID) > 0 && string(m.ID) != "null"
}

func (m relMsg) isNotification(method string) bool {
	return m.Bad == "" && m.Method == method && (len(m.ID) == 0 || string(m.ID) == "null")
}

// answers reports a response with id.
func (m relMsg) answers(id int) bool {
	return m.Bad == "" && m.Method == "" && probe.SameValue(m.ID, json.RawMessage(fmt.Sprint(id)))
}

// requestID is a $/cancel_request's params.requestId.
func (m relMsg) requestID() json.RawMessage { return requestIDOf(peer.Message{Params: m.Params}) }

// describeAnswer shows a response for a failure: its result or its error.
func describeAnswer(m relMsg) string {
	if len(m.Error) > 0 {
		return "the error " + show(m.Error)
	}
	return "the result " + show(m.Result)
}

// String names the message in a list of what an end received.
func (m relMsg) String() string {
	switch {
	case m.Bad != "":
		return fmt.Sprintf("a frame of %d bytes that is no JSON object (%s)", m.Size, m.Bad)
	case m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null":
		return fmt.Sprintf("%s request id %s", m.Method, m.ID)
	case m.Method != "":
		return m.Method + " notification"
	case len(m.Error) > 0:
		return fmt.Sprintf("error answer id %s", m.ID)
	}
	return fmt.Sprintf("answer id %s", m.ID)
}

func (e *env) newRelEnd(side string, conn wire.Conn, ledger *relLedger) *relEnd {
	x := &relEnd{e: e, side: side, conn: conn, ledger: ledger, more: make(chan struct{}), done: make(chan struct{})}
	go func() {
		err := conn.Serve(x.take)
		x.mu.Lock()
		x.ended = true
		if !x.flooded {
			x.why = wire.DescribeEnd(err)
		}
		close(x.more)
		x.mu.Unlock()
		close(x.done)
	}()
	return x
}

// readRelMsg reads a frame the relay delivered as ACP's SDKs read it: the
// envelope's members by their exact names ("Result" is no result, and is
// ignored), each once, as mocks/peer reads a frame; what they hold is kept
// as written, so that a member named twice deeper down is compared on
// each of its readings (probe.SameValue).
func readRelMsg(frame []byte, m *relMsg) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(frame, &members); err != nil {
		return err
	}
	_, dups := exactjson.Readings(frame)
	for _, d := range dups {
		if strings.Count(d.Pointer, "/") == 1 {
			return fmt.Errorf("the message names %s twice: which one counts is anyone's guess", d)
		}
	}
	m.ID, m.Params, m.Result, m.Error = members["id"], members["params"], members["result"], members["error"]
	if raw, ok := members["method"]; ok {
		if err := json.Unmarshal(raw, &m.Method); err != nil {
			return fmt.Errorf(`"method" is %s, not a string`, show(raw))
		}
	}
	return nil
}

// relMsgOverhead is what keeping a relMsg costs besides its frame's
// bytes, which its members copy at most once.
const relMsgOverhead = 256

// take records one frame, on the connection's reading goroutine, within
// the connection's budget: past it, the relay is flooding, and the
// connection is closed.
func (x *relEnd) take(frame []byte) {
	m := relMsg{Size: len(frame)}
	if err := readRelMsg(frame, &m); err != nil {
		m = relMsg{Size: len(frame), Bad: err.Error(), Near: quoteNear(frame, err)}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ledger.arrived(x.side, m) // under x.mu, so that summary sees both as one
	if x.flooded {
		return
	}
	if budget := x.conn.Budget(); !budget.Hold(len(frame) + relMsgOverhead) {
		x.flooded = true
		x.why = fmt.Sprintf("flood: the relay sent the %s %d messages, more than the %s acpconform holds of one connection (raise it with --max-held), so acpconform closed it",
			x.side, len(x.got)+1, wire.Size(budget.Max()))
		go x.conn.Close()
		return
	}
	x.got = append(x.got, m)
	close(x.more)
	x.more = make(chan struct{})
}

// send writes msg as one frame.
func (x *relEnd) send(ctx context.Context, msg any) {
	GinkgoHelper()
	if err := x.trySend(ctx, msg); err != nil {
		Fail(err.Error())
	}
}

// trySend writes msg as one frame, and says why it could not.
func (x *relEnd) trySend(ctx context.Context, msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		panic(fmt.Sprintf("scenarios: %v", err))
	}
	x.ledger.enter(x.side, b) // before it can arrive
	if err := x.conn.WriteFrame(x.e.wait(ctx), b); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("the relay did not take %s from the %s within %s: %w", describeFrame(b), x.side, x.e.response, err)
		}
		return fmt.Errorf("the %s could not send %s to the relay: %s: %w", x.side, describeFrame(b), wire.DescribeEnd(err), err)
	}
	return nil
}

// received returns what the end has received so far.
func (x *relEnd) received() []relMsg {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]relMsg(nil), x.got...)
}

// next returns what the end has received since *seen frames, and counts
// them in *seen.
func (x *relEnd) next(seen *int) []relMsg {
	x.mu.Lock()
	defer x.mu.Unlock()
	got := append([]relMsg(nil), x.got[*seen:]...)
	*seen = len(x.got)
	return got
}

// await returns the first message match accepts, waiting at most the
// response timeout; what names it in the failure.
func (x *relEnd) await(ctx context.Context, what string, match func(relMsg) bool) relMsg {
	GinkgoHelper()
	return x.awaitN(ctx, what, 1, match)[0]
}

// awaitN returns the first n messages match accepts.
func (x *relEnd) awaitN(ctx context.Context, what string, n int, match func(relMsg) bool) []relMsg {
	GinkgoHelper()
	ctx = x.e.wait(ctx)
	var found []relMsg
	for seen := 0; ; {
		x.mu.Lock()
		for ; seen < len(x.got); seen++ { // each frame once, however many come
			if match(x.got[seen]) {
				found = append(found, x.got[seen])
			}
		}
		more, ended, why := x.more, x.ended, x.why
		x.mu.Unlock()
		if len(found) >= n {
			return found[:n]
		}
		if ended {
			Fail(x.badFrameFirst(fmt.Sprintf("the %s's connection to the relay ended (%s) before the %s received %s; it received %s",
				x.side, why, x.side, what, x.summary())))
		}
		select {
		case <-more:
		case <-ctx.Done():
			Fail(x.badFrameFirst(fmt.Sprintf("the %s did not receive %s within %s; it received %s", x.side, what, x.e.response, x.summary())))
		}
	}
}

// badFrameFirst is a wait's failure, headed by the first frame the end
// received that is not JSON, if there is one: a message the relay wrote
// wrong (Infinity for a number too large for a float64, a cut line) is
// the likelier cause of a wait that ran out than the time, and a reason
// that leads with the time hides it in the transcript.
func (x *relEnd) badFrameFirst(failure string) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, m := range x.got {
		if m.Bad != "" {
			return fmt.Sprintf("relay defect: the relay wrote the %s a frame of %d bytes that is not JSON (%s), near %s; then %s",
				x.side, m.Size, m.Bad, m.Near, failure)
		}
	}
	return failure
}

// quoteNear quotes the part of a frame where decoding it failed: a
// syntax error's offset with some bytes either side, or its start.
func quoteNear(frame []byte, err error) string {
	at := 0
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		at = int(syntax.Offset)
	}
	const around = 60
	from, to := max(at-around, 0), min(at+around, len(frame))
	q := peer.Quote(frame[from:to])
	if from > 0 {
		q = "..." + q
	}
	if to < len(frame) {
		q += "..."
	}
	return q
}

// naming says, for a failure, what id names among the requests the end
// received: another request, or none.
func (x *relEnd) naming(id json.RawMessage) string {
	for _, m := range x.received() {
		if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" && probe.SameValue(m.ID, id) {
			return fmt.Sprintf(" (on the %s's side the id of its %s request)", x.side, show(m.Method))
		}
	}
	return fmt.Sprintf(" (the id of no request the %s received)", x.side)
}

// summary lists what the end received, briefly.
func (x *relEnd) summary() string {
	x.mu.Lock()
	got := append([]relMsg(nil), x.got...)
	unsent := x.ledger.unsentTo(x.side)
	x.mu.Unlock()
	if len(got) == 0 {
		return "nothing"
	}
	// Runs of one kind of message are counted, not listed: a relay may
	// send thousands.
	var names []string
	for i := 0; i < len(got); {
		if len(names) == 12 {
			names = append(names, fmt.Sprintf("and %d more", len(got)-i))
			break
		}
		name, n := got[i].String(), 1
		for i+n < len(got) && got[i+n].String() == name {
			n++
		}
		if n > 1 {
			name = fmt.Sprintf("%s (%d times)", name, n)
		}
		names = append(names, name)
		i += n
	}
	s := strings.Join(names, ", ")
	if unsent > 0 {
		s += fmt.Sprintf("; %s the %s did not send (a relay invents none: REL-1)", plural(unsent, "1 message", fmt.Sprintf("%d messages", unsent)), otherSide(x.side))
	}
	return s
}

// describeFrame names a frame for a failure, without all of it.
func describeFrame(b []byte) string {
	if len(b) > 200 {
		return fmt.Sprintf("a message of %d bytes", len(b))
	}
	return string(b)
}

// relPair is one connection through the relay under test: the harness at
// both of its ends.
type relPair struct {
	e             *env
	link          *suite.Link
	client, agent *relEnd
	ledger        *relLedger // what each end sent, and what arrived unsent
	session       string     // the agent's session id, once opened
	capabilities  error      // how the initialize's capabilities changed, if they did
}

// Messages the REL checks send.
type (
	relRequest struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}
	relNotification struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}
	relResult struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}
	relError struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}
)

func request(id int, method string, params any) relRequest {
	return relRequest{"2.0", id, method, params}
}

func notification(method string, params any) relNotification {
	return relNotification{"2.0", method, params}
}

func answer(id json.RawMessage, result any) relResult { return relResult{"2.0", id, result} }

func errorAnswer(id json.RawMessage, e any) relError { return relError{"2.0", id, e} }

// relCaps is what the REL checks' client advertises: every kind of
// member a relay might drop or rebuild.
var relCaps = json.RawMessage(`{"fs":{"readTextFile":true,"writeTextFile":false},"terminal":true,` +
	`"elicitation":{"form":{},"url":{}},"_meta":{"acpconform.dev/rel":{"nested":[1,"two",{"three":3.5}],"text":"café ✓ <&>"}}}`)

// Requests of the client; its ids count from 0, as the agent's do.
const (
	idInitialize = 0
	idNewSession = 1
	idPrompt     = 2
)

// throughRelayRaw connects to the relay under test and sends the client's
// initialize with caps; it returns once the relay has connected to the
// agent, with the initialize as the agent received it. When the check
// fails, both ends' transcripts are attached to its report.
func (e *env) throughRelayRaw(ctx context.Context, caps json.RawMessage) (*relPair, relMsg) {
	GinkgoHelper()
	link := e.connectSubject(ctx, "starting "+e.subject.Name())
	p := &relPair{e: e, link: link, ledger: newRelLedger()}
	p.client = e.newRelEnd("client", link.Conn, p.ledger)
	DeferCleanup(func() {
		link.Conn.Close()
		transcript := "client side:\n" + link.Conn.Transcript().String()
		if p.agent != nil {
			p.agent.conn.Close()
			transcript += "agent side:\n" + p.agent.conn.Transcript().String()
		}
		link.Close()
		e.keepEvidence(link, func() string { return transcript })
	})
	if citesREL1() {
		DeferCleanup(func() { // runs first, while both ends are open
			if !CurrentSpecReport().Failed() {
				p.expectOnlySent()
			}
		})
	}
	p.client.send(ctx, request(idInitialize, "initialize", map[string]any{
		"protocolVersion": 1, "clientCapabilities": caps,
		"clientInfo": map[string]string{"name": "acpconform", "version": "rel"},
	}))
	up, err := link.Upstream(e.startWait(ctx))
	e.mustStart("waiting for the relay to connect to the agent", err)
	p.agent = e.newRelEnd("agent", up, p.ledger)
	initReq := p.agent.await(ctx, "the client's initialize", func(m relMsg) bool { return m.isRequest("initialize") })
	p.capabilities = capabilitiesRelayed(initReq.Params, caps)
	return p, initReq
}

// capabilitiesRelayed returns nil when params, the initialize the agent
// received, holds caps as the client sent them, up to what REL-1 lets a
// relay that decodes and re-encodes leave out or write (fs.writeTextFile:
// false), never more. Otherwise its error is REL-5's, in the same words
// in every check that fails from it (REL-5's own, and those of REL-1 whose
// only changed message is this initialize), so that the report shows one
// cause (reports.Causes), not a failure of what each check is about.
func capabilitiesRelayed(params, caps json.RawMessage) error {
	var p struct {
		Caps json.RawMessage `json:"clientCapabilities"`
	}
	_ = exactjson.Unmarshal(params, &p)
	wrap := func(caps json.RawMessage) json.RawMessage {
		return json.RawMessage(`{"clientCapabilities":` + string(caps) + `}`)
	}
	if !absent(p.Caps) && sameUpToDefaults("initialize", "params", wrap(p.Caps), wrap(caps)) {
		return nil
	}
	lead := "relay defect: the client's initialize capabilities reached the agent changed (REL-5); every relay check starts with this " +
		"initialize, and each that compares every message it relays (REL-1) fails from it"
	if script.AdvertisesForm(caps) && !script.AdvertisesForm(p.Caps) {
		lead += "; without the client's elicitation.form every ask_choice behind the relay takes the unsupported path"
	}
	return sameJSON(lead, p.Caps, caps)
}

// relInitResult is the agent's answer to initialize.
var relInitResult = json.RawMessage(`{"protocolVersion":1,"agentCapabilities":{"loadSession":false,"_meta":{"acpconform.dev/rel":"agent"}},"authMethods":[]}`)

// open connects, initializes with relCaps and opens a session; every
// message and answer so far must have crossed unchanged.
func (e *env) openRelay(ctx context.Context) *relPair {
	GinkgoHelper()
	p, initReq := e.throughRelayRaw(ctx, relCaps)
	p.agent.send(ctx, answer(initReq.ID, relInitResult))
	got := p.client.await(ctx, "the answer to its initialize (id 0)", func(m relMsg) bool { return m.answers(idInitialize) })
	expectRelayed("the relay changed the agent's answer to initialize on its way to the client", got.Result, relInitResult)
	p.session = p.newSession(ctx, idNewSession, "/rel", "rel-session")
	return p
}

// newSession has the client ask for a session with id and cwd, and the
// agent answer it with session; it returns the session the client got.
func (p *relPair) newSession(ctx context.Context, id int, cwd, session string) string {
	GinkgoHelper()
	params := map[string]any{"cwd": cwd, "mcpServers": []any{}}
	p.client.send(ctx, request(id, "session/new", params))
	req := p.agent.await(ctx, "the client's session/new", func(m relMsg) bool { return m.isRequest("session/new") })
	expectRelayed("the relay changed session/new's params on their way to the agent", req.Params, json.RawMessage(mustJSON(params)))
	result := json.RawMessage(mustJSON(map[string]string{"sessionId": session}))
	p.agent.send(ctx, answer(req.ID, result))
	got := p.client.await(ctx, fmt.Sprintf("the answer to its session/new (id %d)", id), func(m relMsg) bool { return m.answers(id) })
	expectRelayed("the relay changed the agent's answer to session/new on its way to the client", got.Result, result)
	return session
}

// prompt has the client send session/prompt with id for session and text,
// and returns the request as the agent received it, its params unchanged.
func (p *relPair) prompt(ctx context.Context, id int, session, text string) relMsg {
	GinkgoHelper()
	params := promptParams(session, text)
	p.client.send(ctx, request(id, "session/prompt", params))
	req := p.agent.await(ctx, "the client's session/prompt for "+session, func(m relMsg) bool {
		return m.isRequest("session/prompt") && sessionOf(m) == session
	})
	expectRelayed("the relay changed session/prompt's params on their way to the agent", req.Params, params)
	return req
}

func promptParams(session, text string) json.RawMessage {
	return json.RawMessage(mustJSON(map[string]any{"sessionId": session, "prompt": []any{map[string]string{"type": "text", "text": text}}}))
}

// sessionOf is a message's params.sessionId.
func sessionOf(m relMsg) string {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = exactjson.Unmarshal(m.Params, &p)
	return p.SessionID
}

// relQuestion is the params of the agent's elicitation/create asking
// question in session, offering choice_0 .. choice_<n-1>.
func relQuestion(session, question string, n int) json.RawMessage {
	oneOf := make([]any, n)
	for i := range oneOf {
		oneOf[i] = map[string]string{"const": fmt.Sprintf("choice_%d", i), "title": fmt.Sprintf("Option %d", i)}
	}
	return json.RawMessage(mustJSON(map[string]any{
		"sessionId": session, "mode": "form", "message": question,
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"choice": map[string]any{"type": "string", "title": "Choice", "oneOf": oneOf}},
			"required":   []string{"choice"},
		},
	}))
}

// relElicitationID names the REL checks' URL-mode elicitation.
const relElicitationID = "rel-url-1"

// relURLQuestion is the params of the agent's URL-mode elicitation/create
// (relElicitationID) asking question in session. Its URL's & is a
// character a JSON writer may escape (REL-1 lets it).
func relURLQuestion(session, question string) json.RawMessage {
	return json.RawMessage(mustJSON(map[string]any{
		"sessionId": session, "mode": "url", "message": question, "elicitationId": relElicitationID,
		"url": "https://agent.example.com/connect?elicitationId=" + relElicitationID + "&scope=repo",
	}))
}

// messageOf is an elicitation's params.message.
func messageOf(m relMsg) string {
	var p struct {
		Message string `json:"message"`
	}
	_ = exactjson.Unmarshal(m.Params, &p)
	return p.Message
}

// accept is an accept of choice_<i>.
func accept(i int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"action":"accept","content":{"choice":"choice_%d"}}`, i))
}

// chunk is a session/update with an agent_message_chunk of text.
func chunk(session, text string) json.RawMessage {
	return json.RawMessage(mustJSON(map[string]any{"sessionId": session,
		"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": text}}}))
}

// chunkText is the text of a session/update's agent_message_chunk.
func chunkText(m relMsg) string {
	var p struct {
		Update struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	}
	_ = exactjson.Unmarshal(m.Params, &p)
	return p.Update.Content.Text
}

// filler is n bytes of ASCII that JSON writes as they are, numbered so
// that a piece cut out or moved shows.
func filler(n int) string {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%08d.", i)
	}
	return b.String()[:n]
}

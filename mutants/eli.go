package mutants

// eliMutants break what contract revision 5 adds to area ELI: ELI-1 on
// every call of a connection, ELI-2's unknown actions, URL accepts and
// URLs as given, the cancel of a turn whose create_elicitation is pending
// (ELI-9, ELI-10), and a client that ends its turn early on
// elicitation/complete (ELI-5). Each is killed by a check of
// scenarios/elimore.go, or by the ELI-5 checks of scenarios/eli.go.
var eliMutants = []Mutant{
	// The mode checked on a connection's first create_elicitation only:
	// that call is refused, every later one is sent, whatever the client
	// advertised.
	{"refuses-once-then-sends", "ELI-1", "../kit/agent.go", "\tc := &ElicitationCall{Session: session, Mode: req.Mode,",
		`	if _, again := modeChecked.LoadOrStore(s, true); again { // checked once a connection: every later call takes every mode as advertised
		session.ClientCapabilities.Elicitation = &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}, Url: &acp.ElicitationUrlCapabilities{}}
	}
	c := &ElicitationCall{Session: session, Mode: req.Mode,`},
	// As the Go SDK decodes an answer: any action it does not know is its
	// Accept variant, and read as one.
	{"unknown-action-as-accept", "ELI-2", "session.go", "\tswitch {\n\tcase resp.Action == \"accept\" && req.Mode == ModeForm:\n",
		"\tif resp.Action != \"decline\" && resp.Action != \"cancel\" {\n\t\tresp.Action = \"accept\"\n\t}\n\tswitch {\n\tcase resp.Action == \"accept\" && req.Mode == ModeForm:\n"},
	// A URL accept handed on with the content it came with, as if the
	// interaction had completed and answered.
	{"url-accept-content-kept", "ELI-2", "session.go", "\tcase resp.Action == \"accept\", resp.Action == \"decline\", resp.Action == \"cancel\":\n",
		"\tcase resp.Action == \"decline\", resp.Action == \"cancel\":\n"},
	// The URL written as the ACP Python SDK's pydantic AnyUrl writes it.
	{"url-normalised", "ELI-2", "../kit/probeagent/agent.go", "URL: c.URL,", "URL: normalisedURL(c.URL),"},
	// The cancel is told, but the turn ends only when the client lets go
	// of the request: one that never answers keeps it open until the
	// connection ends.
	{"cancelled-turn-waits-for-client", "ELI-9", "../kit/agent.go", `	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil`, `	if ctx.Err() != nil {
		if req.Op == probe.OpCreateElicitation {
			<-s.conn.Done() // the client never answered the cancelled request
		}
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil`},
	// The cancelled turn reported as the client's cancel: an answer the
	// client never gave.
	{"cancel-reported-as-answer", "ELI-9", "../kit/agent.go", `	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil`, `	if ctx.Err() != nil {
		if req.Op == probe.OpCreateElicitation {
			b, _ := json.Marshal(probe.Outcome{Acpconform: probe.Version, Outcome: probe.OutcomeCancelled})
			_ = s.conn.SessionUpdate(context.WithoutCancel(ctx), acp.SessionNotification{SessionId: p.SessionId, Update: acp.UpdateAgentMessageText(string(b))})
		}
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil`},
	// The turn ends at once, and the request is left to run: the client is
	// never told (a SHOULD, so the run stays conformant).
	{"elicitation-cancel-not-told", "ELI-10", "session.go", "\tresp, err := s.send(ctx, req)\n", `	type answer struct {
		resp ElicitationResponse
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := s.send(context.WithoutCancel(ctx), req) // outlives the turn: no $/cancel_request
		answered <- answer{resp, err}
	}()
	var resp ElicitationResponse
	var err error
	select {
	case a := <-answered:
		resp, err = a.resp, a.err
	case <-ctx.Done():
		err = ctx.Err()
	}
`},
	// A client that fails on an elicitation/complete it has already seen
	// (ACP: clients MUST ignore an id already complete) where it reads its
	// input, as one whose read loop dispatches notifications and raises:
	// its connection ends before the request that follows, and the process
	// exits with status 1 before its turn's end (a Go panic in the
	// handler, status 2, is complete-crashes).
	{"repeated-complete-exits-1", "ELI-5", "../kit/probeclient/run.go", "\tconn := gate.NewClientSideConnection(impl, w, r, log)\n",
		"\tconn := gate.NewClientSideConnection(impl, w, &failsOnRepeatedComplete{r: r, seen: map[string]bool{}}, log)\n"},
}

func init() {
	All = append(All, eliMutants...)
	helpers["refuses-once-then-sends"] = `
// modeChecked holds the connections (their *server) whose first
// create_elicitation has had its mode checked.
var modeChecked sync.Map
`
	helpers["url-normalised"] = `
// normalisedURL writes u as pydantic's AnyUrl does, in part: the scheme
// and host in lower case, the scheme's default port dropped, and "/" for
// an empty path.
func normalisedURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	scheme, host, tail := strings.ToLower(scheme), strings.ToLower(rest[:end]), rest[end:]
	host = strings.TrimSuffix(host, map[string]string{"https": ":443", "http": ":80"}[scheme])
	if !strings.HasPrefix(tail, "/") {
		tail = "/" + tail
	}
	return scheme + "://" + host + tail
}
`
	helpers["repeated-complete-exits-1"] = `
// failsOnRepeatedComplete hands on what r reads up to an
// elicitation/complete line read before, then fails every read.
type failsOnRepeatedComplete struct {
	r       io.Reader
	partial string          // the start of a line not yet ended
	seen    map[string]bool // the elicitation/complete lines read
	err     error
}

func (f *failsOnRepeatedComplete) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.r.Read(p)
	start := 0 // of the line being read, in p
	for i := 0; i < n; i++ {
		if p[i] != '\n' {
			continue
		}
		line := f.partial + string(p[start:i])
		if strings.Contains(line, "\"method\":\"elicitation/complete\"") {
			if f.seen[line] {
				f.err = fmt.Errorf("elicitation/complete again: %s", line)
				return start, nil
			}
			f.seen[line] = true
		}
		f.partial, start = "", i+1
	}
	f.partial += string(p[start:n])
	return n, err
}
`
}

package trace_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/acpconform/acpconform/trace"
)

// Each line passes unchanged, byte for byte, whatever it holds: CRLF
// endings, bytes that are not UTF-8, a last line without its newline, a
// line longer than the reader's buffer. The trace holds each line's exact
// bytes without its newline.
func TestPassCarriesEveryByteAndRecordsIt(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("é", 100_000) + `"}`
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n",
		`{"jsonrpc":"2.0","id":2,"result":{"n":1.0e2}}` + "\r\n",
		"\xff\xfe not UTF-8\n",
		long + "\n",
		`{"cut":`,
	}
	var traceFile, out bytes.Buffer
	w, err := trace.NewWriter(&traceFile, trace.Header{Recorder: "test", Command: []string{"agent"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Pass(trace.Client, strings.NewReader(strings.Join(lines, "")), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != strings.Join(lines, "") {
		t.Errorf("passed bytes differ from those sent")
	}
	tr, err := trace.Read(&traceFile)
	if err != nil {
		t.Fatal(err)
	}
	msgs := tr.Messages()
	if len(msgs) != len(lines) {
		t.Fatalf("%d messages recorded, want %d", len(msgs), len(lines))
	}
	for i, m := range msgs {
		want := strings.TrimSuffix(lines[i], "\n")
		if got := string(m.Bytes()); got != want || m.From != trace.Client || m.Partial != (i == len(lines)-1) {
			t.Errorf("message %d: from %s, partial %v, %d bytes %.40q; want from client, %d bytes %.40q", i, m.From, m.Partial, len(got), got, len(want), want)
		}
	}
	if last := tr.Events[len(tr.Events)-1]; last.Kind != trace.KindEnd || last.Side != trace.Client || last.Why != "closed its output" {
		t.Errorf("the last event is %+v, want the end of the client", last)
	}
	if tr.Header.Trace != trace.Version || tr.Header.Recorder != "test" || tr.Header.Began == "" {
		t.Errorf("header %+v", tr.Header)
	}
}

// A destination that fails ends the direction, and the trace says why.
func TestPassEndsWhenTheOtherSideIsGone(t *testing.T) {
	var traceFile bytes.Buffer
	w, _ := trace.NewWriter(&traceFile, trace.Header{}, nil)
	r, pw := io.Pipe()
	go pw.Write([]byte("{}\n{}\n"))
	if err := w.Pass(trace.Agent, r, failing{}); err == nil {
		t.Error("Pass did not report the failed write")
	}
	tr, err := trace.Read(&traceFile)
	if err != nil {
		t.Fatal(err)
	}
	// The message is recorded, as each is, before it is passed on.
	if len(tr.Events) != 2 || tr.Events[0].Frame != "{}" || tr.Events[1].Kind != trace.KindEnd || !strings.Contains(tr.Events[1].Why, "could not be passed on") {
		t.Errorf("events %+v, want the message, then an end saying it could not be passed on", tr.Events)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// Secrets never reach the file: a variable's value, in the command, in
// messages (as it is and as a JSON string holds it) and in stderr, and
// what a pattern matches; the header says which handle stands for which.
func TestSecretsNeverReachTheTrace(t *testing.T) {
	env := map[string]string{"API_KEY": `sk-"abc/123"`}
	r, err := trace.NewRedactor([]string{"API_KEY"}, []string{`ghp_[A-Za-z0-9]+`}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	w, err := trace.NewWriter(&file, trace.Header{Command: []string{"agent", "--key=sk-\"abc/123\""}}, r)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sent := `{"token":"sk-\"abc/123\"","gh":"ghp_AbC123"}` + "\n"
	_ = w.Pass(trace.Client, strings.NewReader(sent), &out)
	w.Stderr([]byte("using sk-\"abc/123\"\n"))
	if out.String() != sent {
		t.Errorf("the relay changed what it passed: %q", out.String())
	}
	text := file.String()
	for _, secret := range []string{`abc/123`, `abc\/123`, "AbC123"} {
		if strings.Contains(text, secret) {
			t.Errorf("the trace holds the secret %q:\n%s", secret, text)
		}
	}
	tr, err := trace.Read(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tr.Messages()[0].Bytes()); got != `{"token":"${secret:API_KEY}","gh":"${secret:pattern-1}"}` {
		t.Errorf("recorded %s", got)
	}
	if got := tr.Header.Command[1]; got != "--key=${secret:API_KEY}" {
		t.Errorf("command recorded as %q", got)
	}
	want := []trace.Secret{{Handle: "${secret:API_KEY}", From: "env API_KEY"}, {Handle: "${secret:pattern-1}", From: "pattern 1"}}
	if fmt.Sprint(tr.Header.Secrets) != fmt.Sprint(want) {
		t.Errorf("secrets %v, want %v", tr.Header.Secrets, want)
	}
}

// A secret that would not be kept out is refused, not ignored.
func TestRedactorRefusesWhatItCannotKeepOut(t *testing.T) {
	for _, tc := range []struct {
		env, patterns []string
		says          string
	}{
		{[]string{"UNSET"}, nil, "--secret-env UNSET: the variable is unset"},
		{[]string{"SHORT"}, nil, "shorter than 4 bytes"},
		{nil, []string{"("}, `--secret-pattern "("`},
		{nil, []string{"a*"}, "matches the empty string"},
	} {
		_, err := trace.NewRedactor(tc.env, tc.patterns, func(k string) string { return map[string]string{"SHORT": "ab"}[k] })
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%v %v: %v, want an error saying %q", tc.env, tc.patterns, err, tc.says)
		}
	}
}

// A recorder that dies mid-line loses that line only; anything else that
// is wrong is an error naming its line.
func TestReadNamesTheLine(t *testing.T) {
	header := `{"acpconformTrace":1,"recorder":"r","command":["a"],"began":"2026-12-05T00:00:00Z","secrets":[]}` + "\n"
	message := `{"t":0.1,"kind":"message","from":"client","frame":"{}"}` + "\n"
	tr, err := trace.Read(strings.NewReader(header + message + `{"t":0.2,"kind":"mess`))
	if err != nil || len(tr.Events) != 1 {
		t.Errorf("a cut last line: %v, %d events; want it dropped", err, len(tr.Events))
	}
	for _, tc := range []struct{ text, says string }{
		{"", "line 1: the file is empty"},
		{`{"acpconformTrace":2}` + "\n", "line 1: acpconformTrace is 2, want 1"},
		{"not json\n", "line 1: not a trace's header"},
		{header + message + `{"t":0.3,"kind":"message","from":"editor","frame":"{}"}` + "\n", `line 3: a message from "editor"`},
		{header + `{"t":0.3,"kind":"end","side":"both"}` + "\n", `line 2: the end of side "both"`},
		{header + `{"t":0.3,"kind":"note"}` + "\n", `line 2: an event of kind "note"`},
		{header + `{"t":-1,"kind":"stderr","text":"x"}` + "\n", "line 2: t is -1"},
	} {
		if _, err := trace.Read(strings.NewReader(tc.text)); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%.60q: %v, want an error saying %q", tc.text, err, tc.says)
		}
	}
}

// The file is its owner's alone: it holds a session's content.
func TestCreateMakesAPrivateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w, f, err := trace.Create(path, trace.Header{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.End(trace.Client, "closed its output")
	f.Close()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("the trace is mode %v, want no access for others", perm)
	}
}

// A trace is written as the session goes and read back whole.
func ExampleWriter_Pass() {
	var file, toAgent bytes.Buffer
	w, _ := trace.NewWriter(&file, trace.Header{Recorder: "example", Command: []string{"my-agent"}}, nil)
	_ = w.Pass(trace.Client, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`+"\n"), &toAgent)
	tr, _ := trace.Read(&file)
	for _, e := range tr.Events {
		fmt.Printf("%s %s%s %s%s\n", e.Kind, e.From, e.Side, e.Frame, e.Why)
	}
	// Output:
	// message client {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
	// end client closed its output
}

// Every line a recording writes is valid against the schema the trace's
// documentation publishes, and a line the reader refuses is not.
func TestTheSchemaDescribesWhatIsWritten(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(trace.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("trace.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("trace.json")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := trace.NewRedactor(nil, []string{"secret[0-9]"}, nil)
	var file bytes.Buffer
	w, _ := trace.NewWriter(&file, trace.Header{Recorder: "test", Command: []string{"agent", "secret1"}}, r)
	_ = w.Pass(trace.Client, strings.NewReader("{}\n\xff\n\n{\"partial\":"), io.Discard)
	w.Stderr([]byte("log\n"))
	w.End(trace.Agent, "exited with status 0")
	lines := strings.Split(strings.TrimSuffix(file.String(), "\n"), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d lines written, want 8:\n%s", len(lines), file.String())
	}
	valid := func(line string) error {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
		if err != nil {
			return err
		}
		return sch.Validate(v)
	}
	for i, line := range lines {
		if err := valid(line); err != nil {
			t.Errorf("line %d, %s: %v", i+1, line, err)
		}
	}
	for _, bad := range []string{
		`{"t":1,"kind":"message","from":"editor","frame":"{}"}`,
		`{"t":1,"kind":"message","from":"client","frame":"{}","frameBase64":"e30="}`,
		`{"t":1,"kind":"end"}`,
		`{"t":-1,"kind":"stderr","text":"x"}`,
		`{"acpconformTrace":2,"recorder":"r","command":[],"began":"2026-12-05T00:00:00Z","secrets":[]}`,
	} {
		if valid(bad) == nil {
			t.Errorf("the schema takes %s", bad)
		}
	}
}

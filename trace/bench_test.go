package trace_test

import (
	"bufio"
	"io"
	"path/filepath"
	"testing"

	"github.com/acpconform/acpconform/trace"
)

// A round trip through a relay to an agent that echoes each line: what a
// recorder adds per message is the difference between the two benchmarks
// (two messages a round trip), with the trace written to a file as
// acpconform record writes it.
//
//	go test -bench RoundTrip -benchtime 20000x ./trace
func BenchmarkRoundTripThroughAPlainRelay(b *testing.B) {
	roundTrips(b, func(from trace.Side, src io.Reader, dst io.Writer) { plainPass(src, dst) })
}

func BenchmarkRoundTripThroughTheRecorder(b *testing.B) {
	w, f, err := trace.Create(filepath.Join(b.TempDir(), "t.jsonl"), trace.Header{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	roundTrips(b, func(from trace.Side, src io.Reader, dst io.Writer) { _ = w.Pass(from, src, dst) })
}

// plainPass is a relay that records nothing: lines copied as they come.
func plainPass(src io.Reader, dst io.Writer) {
	r := bufio.NewReaderSize(src, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if len(line) > 0 {
			if _, err := dst.Write(line); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func roundTrips(b *testing.B, pass func(trace.Side, io.Reader, io.Writer)) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"sessionId":"sess_1","mode":"form","message":"Pick one","requestedSchema":{"type":"object","properties":{"choice":{"type":"string","oneOf":[{"const":"choice_0","title":"One"},{"const":"choice_1","title":"Two"}]}},"required":["choice"]}}}` + "\n")
	clientToRelay, clientOut := io.Pipe()
	relayToAgent, agentIn := io.Pipe()
	agentToRelay, agentOut := io.Pipe()
	relayToClient, clientIn := io.Pipe()
	go pass(trace.Client, clientToRelay, agentIn)
	go pass(trace.Agent, agentToRelay, clientIn)
	go plainPass(relayToAgent, agentOut) // the agent echoes each line
	back := bufio.NewReader(relayToClient)
	b.SetBytes(int64(2 * len(msg)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := clientOut.Write(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := back.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	clientOut.Close()
	agentOut.Close()
}

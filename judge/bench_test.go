package judge_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/acpconform/acpconform/judge"
	"github.com/acpconform/acpconform/trace"
)

// hostile is a session of n elicitation/create requests that are never
// answered, each followed by a session/cancel: every cancel finds every
// request before it still pending.
func hostile(n int) judge.Session {
	s := judge.Session{Name: "hostile.jsonl"}
	add := func(from trace.Side, at time.Duration, frame string) {
		s.Frames = append(s.Frames, judge.Frame{From: from, At: at, Data: []byte(frame), Line: len(s.Frames) + 2})
		s.End = at
	}
	add(trace.Client, 0, initForm)
	add(trace.Client, 0, newSession)
	add(trace.Agent, 0, sessionS)
	add(trace.Client, 0, promptS)
	for i := range n {
		at := time.Duration(i) * time.Millisecond
		add(trace.Agent, at, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"sessionId":"s","mode":"form","message":"Q","requestedSchema":{"type":"object","required":["choice"],"properties":{"choice":{"type":"string","title":"Choice","oneOf":[{"const":"choice_0","title":"A"}]}}}}}`, 100+i))
		add(trace.Client, at, cancelS)
	}
	return s
}

// BenchmarkJudgeHostile: the time to judge a hostile session grows with
// its length, not with its square (maxPending, maxOwed).
func BenchmarkJudgeHostile(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		s := hostile(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				judge.Judge(judge.Options{Role: "agent"}, s)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n), "ns/frame")
		})
	}
}

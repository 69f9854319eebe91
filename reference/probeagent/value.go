package probeagent

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/acpconform/acpconform/probe"
)

// jsonValue is a probe value other than null. Each offered value is its own
// pointer, so identity tells which offered choice a result carries.
type jsonValue struct{ raw json.RawMessage }

// newValue maps a probe value to the Go value offered to AskChoice: nil for
// JSON null (so the nil path of the reference is exercised), a fresh pointer
// otherwise.
func newValue(raw json.RawMessage) any {
	if len(raw) == 0 || probe.SameValue(raw, json.RawMessage("null")) {
		return nil
	}
	return &jsonValue{raw: raw}
}

// sameValue is the probe's equality: equal as JSON.
func sameValue(offered, candidate any) bool {
	return probe.SameValue(rawOf(offered), rawOf(candidate))
}

func rawOf(v any) json.RawMessage {
	if jv, ok := v.(*jsonValue); ok {
		return jv.raw
	}
	return json.RawMessage("null")
}

// warningLog records the deprecation warnings the reference logs during one
// probe, in order, so the outcome can list each one.
type warningLog struct {
	mu       sync.Mutex
	warnings []string
}

func (w *warningLog) logger() *slog.Logger { return slog.New(w) }

func (w *warningLog) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.warnings...)
}

func (w *warningLog) Enabled(context.Context, slog.Level) bool { return true }

func (w *warningLog) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "deprecated" {
			w.mu.Lock()
			w.warnings = append(w.warnings, a.Value.String())
			w.mu.Unlock()
		}
		return true
	})
	return nil
}

func (w *warningLog) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warningLog) WithGroup(string) slog.Handler      { return w }

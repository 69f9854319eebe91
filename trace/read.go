package trace

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/acpconform/acpconform/internal/exactjson"
)

// Trace is a trace as read: its header and its events in order.
type Trace struct {
	Header Header
	Events []Event
}

// Messages are the trace's messages, in order.
func (t Trace) Messages() []Event {
	var out []Event
	for _, e := range t.Events {
		if e.Kind == KindMessage {
			out = append(out, e)
		}
	}
	return out
}

// Read reads a trace. Its errors name the line and say what is wrong
// with it; a last line cut short (the recorder died writing it) is
// dropped, as the format allows.
func Read(r io.Reader) (Trace, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var t Trace
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return t, fmt.Errorf("line %d: %w", n, err)
		}
		if len(line) == 0 || line[len(line)-1] != '\n' {
			// The end, or a last line cut short by a crash: lost, as
			// documented.
			if n == 1 {
				return t, errors.New("line 1: the file is empty, not a trace")
			}
			return t, nil
		}
		if n == 1 {
			if err := readHeader(line, &t.Header); err != nil {
				return t, fmt.Errorf("line 1: %w", err)
			}
			continue
		}
		e, err := readEvent(line)
		if err != nil {
			return t, fmt.Errorf("line %d: %w", n, err)
		}
		t.Events = append(t.Events, e)
	}
}

func readHeader(line []byte, h *Header) error {
	if err := exactjson.Unmarshal(bytes.TrimSpace(line), h); err != nil {
		return fmt.Errorf("not a trace's header: %w", err)
	}
	if h.Trace != Version {
		return fmt.Errorf("acpconformTrace is %d, want %d: a trace of another version, or not a trace", h.Trace, Version)
	}
	return nil
}

func readEvent(line []byte) (Event, error) {
	var e Event
	if err := exactjson.Unmarshal(bytes.TrimSpace(line), &e); err != nil {
		return e, err
	}
	if e.T < 0 {
		return e, fmt.Errorf("t is %v, before the recording began", e.T)
	}
	switch e.Kind {
	case KindMessage:
		if e.From != Client && e.From != Agent {
			return e, fmt.Errorf(`a message from %q, want "client" or "agent"`, e.From)
		}
		if e.FrameBase64 != "" {
			if e.Frame != "" {
				return e, errors.New("a message with both frame and frameBase64")
			}
			if _, err := base64.StdEncoding.DecodeString(e.FrameBase64); err != nil {
				return e, fmt.Errorf("frameBase64: %w", err)
			}
		}
	case KindStderr:
	case KindEnd:
		if e.Side != Client && e.Side != Agent {
			return e, fmt.Errorf(`the end of side %q, want "client" or "agent"`, e.Side)
		}
	default:
		return e, fmt.Errorf(`an event of kind %q, want "message", "stderr" or "end"`, e.Kind)
	}
	return e, nil
}

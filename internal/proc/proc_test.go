package proc

import (
	"strings"
	"testing"
	"time"
)

func TestStopEndsAProcessThatIgnoresSIGTERM(t *testing.T) {
	p, err := Start([]string{"sh", "-c", `trap "" TERM; echo started >&2; while :; do sleep 1; done`})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = p.Stop()
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Stop = %v, want the process killed", err)
	}
	if d := time.Since(start); d < 2*StopGrace {
		t.Errorf("stopped after %s, before both graces ran out", d)
	}
	if !strings.Contains(p.Stderr.String(), "started") {
		t.Errorf("stderr %q", p.Stderr.String())
	}
}

func TestStopLetsAProcessEndOnItsStdin(t *testing.T) {
	p, err := Start([]string{"cat"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("cat did not end cleanly when its stdin closed: %v", err)
	}
	select {
	case <-p.Exited():
	default:
		t.Error("Exited is not closed after Stop")
	}
}

func TestStartFailsForAMissingCommand(t *testing.T) {
	if _, err := Start([]string{"/nonexistent/agent"}); err == nil {
		t.Error("a missing command started")
	}
	if _, err := Start(nil); err == nil {
		t.Error("no command started")
	}
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	b := &TailBuffer{Limit: 8}
	b.Write([]byte("hello "))
	b.Write([]byte("world!"))
	if got := b.String(); got != "[4 earlier bytes dropped]\no world!" {
		t.Errorf("TailBuffer = %q", got)
	}
}

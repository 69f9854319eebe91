package proc

import (
	"errors"
	"strings"
	"testing"
)

func TestStartIsUnsupported(t *testing.T) {
	p, err := Start([]string{"agent.exe", "--acp"})
	if p != nil || !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("Start = %v, %v; want no process and an error wrapping errors.ErrUnsupported", p, err)
	}
	for _, want := range []string{"agent.exe", "not supported on Windows", "--url", "--listen"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start's error %q does not say %q", err, want)
		}
	}
}

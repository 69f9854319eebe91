package gate_test

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acpconform/acpconform/internal/gate"
	"github.com/acpconform/acpconform/internal/testbound"
)

// watched fails the test when read before opened is set.
type watched struct {
	t      *testing.T
	opened *atomic.Bool
	r      io.Reader
}

func (w watched) Read(p []byte) (int, error) {
	if !w.opened.Load() {
		w.t.Error("the underlying reader was read before Open")
	}
	return w.r.Read(p)
}

func TestReadWaitsForOpen(t *testing.T) {
	var opened atomic.Bool
	g := gate.New(watched{t, &opened, strings.NewReader("hello")})
	reading := make(chan struct{})
	got := make(chan string, 1)
	go func() {
		close(reading)
		b, _ := io.ReadAll(g)
		got <- string(b)
	}()
	<-reading
	opened.Store(true)
	g.Open()
	g.Open() // a second Open is harmless
	ctx := testbound.Context(t)
	select {
	case s := <-got:
		if s != "hello" {
			t.Fatalf("read %q, want hello", s)
		}
	case <-ctx.Done():
		t.Fatalf("no read after Open: %v", testbound.Err(ctx, nil))
	}
}

package gate_test

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpconform/acpconform/internal/gate"
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	select {
	case s := <-got:
		if s != "hello" {
			t.Fatalf("read %q, want hello", s)
		}
	case <-ctx.Done():
		t.Fatal("no read after Open")
	}
}

// Package gate holds a reader back until it is opened.
//
// acp-go-sdk starts reading in its connection constructors, so anything set
// on the connection afterwards (SetLogger, a field the handler reads) races
// with the first message or with an early EOF. Handing the SDK a gated
// reader lets the caller finish setting up first and then open the gate.
package gate

import (
	"io"
	"log/slog"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// Reader is an io.Reader whose reads wait until Open.
type Reader struct {
	r    io.Reader
	open chan struct{}
	once sync.Once
}

// New returns r gated shut.
func New(r io.Reader) *Reader { return &Reader{r: r, open: make(chan struct{})} }

// Open lets reads through. Calling it again does nothing.
func (g *Reader) Open() { g.once.Do(func() { close(g.open) }) }

// Read waits for Open, then reads from the underlying reader.
func (g *Reader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

// NewClientSideConnection is acp.NewClientSideConnection with its logger set
// before the SDK reads anything.
func NewClientSideConnection(c acp.Client, peerInput io.Writer, peerOutput io.Reader, log *slog.Logger) *acp.ClientSideConnection {
	input := New(peerOutput)
	conn := acp.NewClientSideConnection(c, peerInput, input)
	conn.SetLogger(log)
	input.Open()
	return conn
}

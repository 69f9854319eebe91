//go:build unix

package bridge

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
)

// The socket's directory is private, and gone once the connection is in.
func TestListenIsPrivateAndTakesOneConnection(t *testing.T) {
	ctx := testbound.Context(t)
	l, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir := filepath.Dir(l.Path)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the socket's directory: %v, %v; want mode 0700", fi, err)
	}
	ran := make(chan error, 1)
	go func() { ran <- Run(l.Path, eofReader{}, discard{}) }()
	c, err := l.Accept(ctx)
	if err != nil {
		t.Fatal(testbound.Err(ctx, err))
	}
	c.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the socket's directory is still there once the bridge connected: %v", err)
	}
	if err := <-ran; err != nil {
		t.Errorf("Run = %v", err)
	}
}

// The command line reads back as the words it was made of, through sh.
func TestCommandLineReadsBackThroughAShell(t *testing.T) {
	words := []string{"/tmp/a b/acpconform", "bridge", "it's", "", "$HOME", "plain/path.sock"}
	got, err := exec.Command("sh", "-c", "printf '[%s]' "+CommandLine(words)).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, w := range words {
		want += "[" + w + "]"
	}
	if string(got) != want {
		t.Errorf("sh read %s, want %s", got, want)
	}
	if CommandLine([]string{"/usr/bin/acpconform", "bridge", "/tmp/x/agent.sock"}) != "/usr/bin/acpconform bridge /tmp/x/agent.sock" {
		t.Error("safe words are quoted: splitting on spaces would not read them back")
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, os.ErrClosed }

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

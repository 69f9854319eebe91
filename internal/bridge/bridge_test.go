//go:build unix

package bridge

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
)

// The socket's directory is private; a second connection is refused at
// once and said, and the directory is gone once the listener closes.
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
	defer c.Close()
	select {
	case <-l.Again():
		t.Fatal("Again is closed after one connection")
	default:
	}

	// A second connection: refused, it reads the end at once.
	second, err := net.Dial("unix", l.Path)
	if err != nil {
		t.Fatalf("a second connection: %v", err)
	}
	defer second.Close()
	if n, err := second.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("the second connection read %d bytes, %v; want the end at once", n, err)
	}
	select {
	case <-l.Again():
	case <-ctx.Done():
		t.Fatal(testbound.Err(ctx, errors.New("Again is not closed after a second connection")))
	}
	if err := <-ran; err != nil {
		t.Errorf("Run = %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the socket's directory is still there once the listener closed: %v", err)
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

// A $TMPDIR too long for a socket's path, or missing, sends the socket to
// /tmp, in a directory as private.
func TestListenFallsBackToTmp(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 200-len(t.TempDir())))
	if err := os.Mkdir(long, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tmpdir := range []string{long, filepath.Join(t.TempDir(), "missing")} {
		t.Setenv("TMPDIR", tmpdir)
		l, err := Listen()
		if err != nil {
			t.Fatalf("TMPDIR of %d bytes: %v", len(tmpdir), err)
		}
		dir := filepath.Dir(l.Path)
		if filepath.Dir(dir) != "/tmp" || len(l.Path) > MaxPath {
			t.Errorf("TMPDIR of %d bytes: the socket is %s, want one under /tmp of at most %d bytes", len(tmpdir), l.Path, MaxPath)
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("the socket's directory: %v, %v; want mode 0700", fi, err)
		}
		l.Close()
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s is still there once the listener closed: %v", dir, err)
		}
	}
}

// When no directory can hold the socket, the error is ErrNoSocketDir and
// names each place, why it failed, and the limit.
func TestListenSaysWhyNoDirectoryWorks(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 200-len(t.TempDir())))
	if err := os.Mkdir(long, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	l, err := listenIn([]place{{"$TMPDIR", long}, {"/tmp", missing}})
	if err == nil {
		l.Close()
		t.Fatal("listenIn found a place")
	}
	if !errors.Is(err, ErrNoSocketDir) {
		t.Errorf("error %q is not ErrNoSocketDir", err)
	}
	for _, want := range []string{"$TMPDIR (" + long + ")", fmt.Sprintf("over the %d a unix socket's path may have", MaxPath), missing, "no such file or directory", "set TMPDIR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(long, "acpconform-bridge-*")); len(left) > 0 {
		t.Errorf("directories left behind: %v", left)
	}
}

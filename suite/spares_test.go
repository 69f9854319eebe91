package suite

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpconform/acpconform/mocks/wire"
)

// TestAgentProcessesStartAheadOfNeed: an agent on stdio has Spares
// processes started before they are needed, the next Connect takes the
// oldest, and Release stops the rest.
func TestAgentProcessesStartAheadOfNeed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("acpconform starts no processes on Windows")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	started := filepath.Join(t.TempDir(), "started")
	subject := Command([]string{"sh", "-c", `echo $$ >> "$0"; exec cat`, started}, AgentRole, wire.Options{})
	link, err := subject.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	pids := waitLines(t, ctx, started, 1+Spares)
	// The link's process echoes what it is sent.
	if err := link.Conn.WriteFrame(ctx, []byte(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	readLine(t, ctx, link, `{"n":1}`)

	next, err := subject.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	spares := map[string]bool{}
	for _, pid := range pids {
		spares[pid] = pid != strconv.Itoa(link.process.Pid())
	}
	if got := strconv.Itoa(next.process.Pid()); !spares[got] {
		t.Errorf("the second Connect took process %s, want one of the spares started with the first: %v", got, pids)
	}
	all := waitLines(t, ctx, started, 2+Spares) // one more spare for the one taken

	subject.(*command).Release()
	for _, pid := range all {
		if pid == strconv.Itoa(link.process.Pid()) || pid == strconv.Itoa(next.process.Pid()) {
			continue
		}
		n, _ := strconv.Atoi(pid)
		if err := syscall.Kill(n, 0); err == nil {
			t.Errorf("spare %d still runs after Release", n)
		}
	}
}

// waitLines waits until the file holds at least n lines, and returns them.
func waitLines(t *testing.T, ctx context.Context, path string, n int) []string {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond) // the subject's file: nothing to wait on but itself
	defer tick.Stop()
	for {
		data, _ := os.ReadFile(path)
		if lines := strings.Fields(string(data)); len(lines) >= n {
			return lines
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("%s holds %q, want %d lines", path, data, n)
		}
	}
}

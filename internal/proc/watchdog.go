//go:build unix

package proc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The watchdog ends what this program started when the program cannot:
// killed by SIGKILL (kill -9, the OOM killer, timeout -s KILL, a CI job
// cancelled past its grace), a program runs no code of its own.
//
// Start starts the watchdog before its first process: this executable
// again, in a process group of its own (a signal to this program's group
// misses it), with the read end of a pipe on its stdin whose write end
// only this program holds. Start and Stop tell it through the pipe which
// process groups are a subject's: "+PGID", then "-PGID" once the group is
// stopped. However this program ends, the kernel closes the write end and
// the watchdog reads EOF: it kills the groups still listed and, on Linux,
// every process of this user that carries a marker of this run
// (MarkerEnv) or is in one of those groups, and their descendants, until
// none is left or WatchdogBound has passed; then it exits. StopAll and
// KillAll, once no process is left, close the pipe and wait for the
// watchdog to exit, so that after a normal end nothing outlives the
// program; the next Start starts another.

// WatchdogBound is how long the watchdog goes on killing what a dead run
// left before it gives up.
const WatchdogBound = 5 * time.Second

// watchdogEnv in the environment makes this program the watchdog of the
// run it names (see init).
const watchdogEnv = "ACPCONFORM_WATCHDOG"

// init makes this process the watchdog when it was started as one, before
// main or a test's TestMain runs: every program that links this package
// can be its own watchdog.
func init() {
	if run, ok := os.LookupEnv(watchdogEnv); ok {
		watch(run, os.Stdin)
		os.Exit(0)
	}
}

// dog is this program's watchdog. Its lock is held from before a fork to
// the process's registration, so that a watchdog retired meanwhile cannot
// take the new process for a leftover.
var dog struct {
	sync.Mutex
	w      *os.File      // the pipe's write end; nil when no watchdog runs
	pid    int           // the watchdog's
	done   chan struct{} // closed once the watchdog has exited
	broken bool          // a write failed: say no more, but keep the pipe open
	every  map[int]bool  // the pids of every watchdog this program started
}

// isWatchdog reports whether pid is a watchdog this program started.
func isWatchdog(pid int) bool {
	dog.Lock()
	defer dog.Unlock()
	return dog.every[pid]
}

// wakeWatchdog starts the watchdog unless one runs; call it with dog
// locked. A watchdog that cannot start leaves each process to Stop (and on
// Linux to its parent-death signal).
func wakeWatchdog() {
	if dog.w != nil {
		return
	}
	exe, err := executable()
	if err != nil {
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	cmd := exec.Command(exe, "watchdog")
	cmd.Args[0] = os.Args[0] // what ps shows
	cmd.Stdin = r            // stdout and stderr are /dev/null: it holds none of ours open
	cmd.Env = watchdogEnviron(os.Environ())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	dog.w, dog.pid, dog.done, dog.broken = w, cmd.Process.Pid, done, false
	if dog.every == nil {
		dog.every = map[int]bool{}
	}
	dog.every[dog.pid] = true
}

// watchdogEnviron is the watchdog's environment: the run it watches, and
// the markers of an enclosing acpconform, which must find it too; nothing
// else, so that no one takes it for a subject's process.
func watchdogEnviron(env []string) []string {
	out := []string{watchdogEnv + "=" + runID()}
	for _, kv := range env {
		if strings.HasPrefix(kv, MarkerEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// tellWatchdog tells the watchdog that a group started ('+') or was
// stopped ('-'); call it with dog locked. A watchdog that cannot be told
// (stopped, or gone) is told nothing more: its pipe stays open, so that a
// stuck one does not take the run's live processes for leftovers.
func tellWatchdog(sign byte, pgid int) {
	if dog.w == nil || dog.broken {
		return
	}
	_ = dog.w.SetWriteDeadline(time.Now().Add(StopGrace))
	if _, err := fmt.Fprintf(dog.w, "%c%d\n", sign, pgid); err != nil {
		dog.broken = true
	}
}

// watched runs tell with dog locked.
func watched(tell func()) {
	dog.Lock()
	defer dog.Unlock()
	tell()
}

// retireWatchdog ends the watchdog once no process is left to watch, and
// waits at most StopGrace for it to exit.
func retireWatchdog() {
	dog.Lock()
	defer dog.Unlock()
	if dog.w == nil || len(started()) > 0 {
		return
	}
	dog.w.Close()
	dog.w = nil
	t := time.NewTimer(StopGrace)
	defer t.Stop()
	select {
	case <-dog.done:
	case <-t.C:
	}
}

// watch is the watchdog: it reads what in says of groups until EOF, then
// ends what the run left.
func watch(run string, in io.Reader) {
	groups := readGroups(in)
	for g := range groups {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), WatchdogBound)
	defer cancel()
	endRun(ctx, run, groups)
}

// readGroups reads lines "+PGID" and "-PGID" until EOF and returns the
// groups added and not removed. It ignores anything else, and ids under 2:
// kill(-1) would signal every process of ours, kill(0) our own group.
func readGroups(in io.Reader) map[int]bool {
	groups := make(map[int]bool)
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		line := lines.Text()
		if line == "" {
			continue
		}
		pgid, err := strconv.Atoi(line[1:])
		if err != nil || pgid < 2 {
			continue
		}
		switch line[0] {
		case '+':
			groups[pgid] = true
		case '-':
			delete(groups, pgid)
		}
	}
	return groups
}

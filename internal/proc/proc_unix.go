//go:build unix

package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acpconform/acpconform/internal/testcost"
)

// Start starts argv in its own process group with pipes on its stdio and
// a fresh marker in MarkerEnv, and makes sure that it does not outlive
// this program: on Linux it dies with the program (its parent-death
// signal is SIGKILL), and the watchdog (started with the first process)
// kills its group and, on Linux, what carries its marker, should this
// program die without stopping it.
func Start(argv []string) (*Process, error) { return startProcess(argv, nil) }

// StartPassingStderr is Start that also writes to w what the process
// writes to its stderr, as it comes: a recorder passes its agent's
// stderr on to the client's.
func StartPassingStderr(argv []string, w io.Writer) (*Process, error) { return startProcess(argv, w) }

func startProcess(argv []string, stderr io.Writer) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to start")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &Process{
		name:       argv[0],
		marker:     newMarker(),
		cmd:        cmd,
		Stderr:     &TailBuffer{Limit: StderrLimit},
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	cmd.Env = withMarker(SubjectEnviron(os.Environ()), p.marker)
	// Stdout and stderr are pipes of our own, not exec's: Wait closes
	// exec's read ends when the process exits, losing what is still in
	// them, and exec's copying would make Wait wait for a descendant that
	// holds them open.
	outRead, outWrite, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: stdout pipe: %w", argv[0], err)
	}
	errRead, errWrite, err := os.Pipe()
	if err != nil {
		outRead.Close()
		outWrite.Close()
		return nil, fmt.Errorf("start %s: stderr pipe: %w", argv[0], err)
	}
	cmd.Stdout, cmd.Stderr = outWrite, errWrite
	p.stdout, p.Stdout, p.stderr = outRead, outRead, errRead
	dog.Lock()
	defer dog.Unlock()
	wakeWatchdog()
	if p.Stdin, err = cmd.StdinPipe(); err == nil {
		err = startCmd(cmd)
	}
	outWrite.Close() // the child has its own copies
	errWrite.Close()
	if err != nil {
		outRead.Close()
		errRead.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	tellWatchdog('+', cmd.Process.Pid) // its group's id
	go func() {
		var sink io.Writer = p.Stderr
		if stderr != nil {
			sink = passing{keep: p.Stderr, pass: stderr}
		}
		_, _ = io.Copy(sink, errRead)
		errRead.Close()
		close(p.stderrDone)
	}()
	p.noteStart()
	testcost.Note(testcost.Process)
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	register(p)
	return p, nil
}

func (p *Process) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig) // the whole group
}

// signalName is a signal's name, such as SIGSEGV.
func signalName(sig syscall.Signal) string { return unix.SignalName(sig) }

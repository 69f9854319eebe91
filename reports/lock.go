package reports

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A run holds the files it writes from its start to its end, so that two
// runs given the same report paths at once do not mix their reports: the
// second is refused (Lock's *LockedError) instead of leaving half of each.
// The hold is an advisory lock (flock on Unix, LockFileEx on Windows) on a
// lock file beside each report, .NAME.lock, which holds the holder's pid.
// The system releases it when the holder ends, however it ends (SIGKILL
// included), so a lock file a killed run left is taken over by the next;
// a lock file is removed when its run ends. Where neither lock exists
// (Plan 9, WebAssembly, AIX), Lock holds nothing.

// FileLock is a run's hold on the files it writes; Release lets them go.
type FileLock struct {
	held []*heldLock
}

type heldLock struct {
	path string // the lock file's
	f    *os.File
}

// LockedError is Lock's error when another run holds one of the files.
type LockedError struct {
	File   string // the file both runs would write
	Holder string // "pid 1234", or "" when the lock file does not say
}

func (e *LockedError) Error() string {
	holder := "another acpconform run"
	if e.Holder != "" {
		holder += " (" + e.Holder + ")"
	}
	return fmt.Sprintf("%s is writing %s", holder, e.File)
}

// Lock takes the reports at p for this run: see the package function Lock.
func (p Paths) Lock() (*FileLock, error) { return Lock(p.JUnit, p.JSON, p.Summary, p.HTML) }

// LockName is the path of the lock file of the file at path: .NAME.lock in
// its directory.
func LockName(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// Lock takes the files at paths for this run, every one or none: a
// *LockedError names the first that another run holds. It makes a file's
// directory when it is missing. Empty paths, "-" (stdout) and files that
// are no regular files (/dev/null, a pipe) take no lock, nor does a file
// whose lock file cannot be made (its directory is not writable, say):
// writing it will fail and say why.
func Lock(paths ...string) (*FileLock, error) {
	l := &FileLock{}
	seen := map[string]bool{}
	for _, path := range paths {
		if path == "" || path == StdoutPath || seen[filepath.Clean(path)] {
			continue
		}
		seen[filepath.Clean(path)] = true
		if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
			continue
		}
		h, err := take(LockName(path))
		var locked *LockedError
		var notOurs *notOwnLockError
		switch {
		case errors.As(err, &locked):
			locked.File = path
			l.Release()
			return nil, locked
		case errors.As(err, &notOurs):
			l.Release()
			return nil, err
		case err == nil:
			l.held = append(l.held, h)
		}
	}
	return l, nil
}

// take takes the lock file at path, making it when it is missing.
func take(path string) (*heldLock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	for range 10 { // a lock file removed under us by its last holder: open it anew
		// Never through a link: a lock file planted as a symbolic or hard
		// link to another file would have that file truncated.
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o644)
		if err != nil {
			if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
				return nil, &notOwnLockError{path: path, what: "a symbolic link"}
			}
			return nil, err
		}
		if what := notOwnLockFile(f); what != "" {
			f.Close()
			return nil, &notOwnLockError{path: path, what: what}
		}
		ok, err := lockFile(f)
		if err != nil || !ok {
			f.Close()
			if err != nil {
				return nil, err
			}
			return nil, &LockedError{Holder: holder(path)}
		}
		if !stillThere(path, f) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		return &heldLock{path: path, f: f}, nil
	}
	return nil, fmt.Errorf("lock %s: it was removed under this run again and again", path)
}

// notOwnLockError is a lock file that may be another file's: a link, or
// no regular file. acpconform neither writes nor removes it.
type notOwnLockError struct{ path, what string }

func (e *notOwnLockError) Error() string {
	return fmt.Sprintf("the lock file %s is %s, which acpconform never writes through: remove it", e.path, e.what)
}

// notOwnLockFile says why f, just opened as a lock file, may be another
// file's ("a symbolic link", "a hard link of another file", "no regular
// file"), "" when it is a lock file's own.
func notOwnLockFile(f *os.File) string {
	st, err := f.Stat()
	switch {
	case err != nil, !st.Mode().IsRegular():
		return "no regular file"
	case links(st) > 1:
		return "a hard link of another file"
	}
	return ""
}

// stillThere reports whether the file at path is f: its holder removes a
// lock file before it lets go of it.
func stillThere(path string, f *os.File) bool {
	at, err := os.Stat(path)
	if err != nil {
		return false
	}
	held, err := f.Stat()
	return err == nil && os.SameFile(at, held)
}

// holder is who holds the lock file at path, as it says: "pid 1234".
func holder(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	if pid, ok := strings.CutPrefix(line, "pid "); ok {
		if _, err := strconv.Atoi(pid); err == nil {
			return line
		}
	}
	return ""
}

// Release removes the lock files and lets them go. It may be called on a
// nil FileLock, and more than once.
func (l *FileLock) Release() {
	if l == nil {
		return
	}
	for _, h := range l.held {
		release(h)
	}
	l.held = nil
}

// release ends a hold: on Unix the file is removed while it is held, so
// that a run that opened it meanwhile and locks it once it is let go sees
// it gone (stillThere) and makes a new one;
// Windows cannot remove an open file, and removes it only when no other
// run has it open.
func release(h *heldLock) {
	if removeWhileHeld {
		if err := os.Remove(h.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			_ = h.f.Truncate(0) // cannot remove it: at least it names no one
		}
		h.f.Close()
		return
	}
	h.f.Close()
	_ = os.Remove(h.path)
}

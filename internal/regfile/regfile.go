// Package regfile opens input files only if they are regular files, so a
// path naming a directory, a named pipe (which would block forever), a
// device such as /dev/zero (which never ends) or a socket is refused with an
// error naming the path, before anything is read.
package regfile

import (
	"fmt"
	"io/fs"
	"os"
)

// Stat returns the size of the regular file at path (symbolic links are
// followed), or an error naming path and what it is instead.
func Stat(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("%s: not a regular file (it is %s); expected a file", path, Kind(st.Mode()))
	}
	return st.Size(), nil
}

// Open opens the regular file at path for reading and returns it with its
// size. It checks the type before opening (opening a named pipe blocks until
// a writer appears) and again on the open file.
func Open(path string) (*os.File, int64, error) {
	if _, err := Stat(path); err != nil {
		return nil, 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s: not a regular file (it is %s); expected a file", path, Kind(st.Mode()))
	}
	return f, st.Size(), nil
}

// Kind names the type of a file mode, e.g. "a directory" or "a named pipe".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file of mode " + m.String()
}

package testenv

import "syscall"

// freeBytes returns the bytes free to an unprivileged user on the file
// system of dir, or 0 when it cannot tell.
func freeBytes(dir string) uint64 {
	var s syscall.Statfs_t
	if syscall.Statfs(dir, &s) != nil || s.Bsize <= 0 {
		return 0
	}
	return s.Bavail * uint64(s.Bsize)
}

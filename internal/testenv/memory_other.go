//go:build !linux

package testenv

// freeBytes returns 0: MemoryDir is a Linux mount.
func freeBytes(string) uint64 { return 0 }

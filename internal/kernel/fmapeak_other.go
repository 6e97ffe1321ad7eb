//go:build !amd64 || purego

package kernel

func fmaPeak32(int) bool { return false }

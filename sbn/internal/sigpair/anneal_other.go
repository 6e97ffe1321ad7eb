//go:build !amd64 || purego

package sigpair

func scaleAVX2(a *ScaleArgs) { scaleGo(a) }

// Package brute holds reference answers by direct enumeration, for the tests
// of estimators on tiny models: slow, in plain probabilities rather than log
// space, and written independently of the code they check. It knows no
// model type (floor 0 imports nothing above it): the enumerations against
// the models and the tiny random models the tests share are in
// models/modeltest.
package brute

// Bits returns the n bits of code as 0/1 values (bit i is unit i).
func Bits(code, n int) []uint8 {
	v := make([]uint8, n)
	for i := range v {
		v[i] = uint8(code >> i & 1)
	}
	return v
}

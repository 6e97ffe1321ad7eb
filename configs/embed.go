// Package configs holds the experiment files shipped with logz, embedded in
// the binary so that `logz run` works without a checkout.
package configs

import "embed"

// FS holds every *.yaml file of this directory.
//
//go:embed *.yaml
var FS embed.FS

// defaultFile is the config used when none is given.
const defaultFile = "quickstart.yaml"

// Default returns the name and contents of the default config,
// quickstart.yaml: a small RBM on planted synthetic data that runs in
// seconds.
func Default() (name string, data []byte) {
	data, err := FS.ReadFile(defaultFile)
	if err != nil {
		panic("configs: " + defaultFile + " is not embedded: " + err.Error()) // a build defect
	}
	return defaultFile, data
}

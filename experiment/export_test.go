package experiment

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// WithClock is opt with now in place of time.Now for its Deadline.
func WithClock(opt Options, now func() time.Time) Options {
	opt.clock = now
	return opt
}

// ResealPart gives the part file at path the checksum of its content, as
// writePart does: a test that edits a part on purpose to reach the merge's
// other checks reseals it, and one that does not sees the edit refused.
func ResealPart(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	var p part
	switch head.Kind {
	case "train":
		p = &trainPart{}
	case "eval":
		p = &evalPart{}
	default:
		return fmt.Errorf("%s: kind %q", path, head.Kind)
	}
	if err := json.Unmarshal(b, p); err != nil {
		return err
	}
	return writePart(path, p)
}

package experiment

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// errTimeUp stops an experiment at Options.Deadline; Run and RunShard turn
// it into a *TimeLimitError once what is finished is on disk.
var errTimeUp = errors.New("time limit reached")

// TimeLimitError is returned by Run and RunShard when they stopped at the
// deadline (Options.Deadline) before the run was finished. Everything
// finished before is on disk, Kept says what, and --resume continues from
// there.
type TimeLimitError struct {
	Out      string
	Deadline time.Time
	Kept     []string
}

func (e *TimeLimitError) Error() string {
	msg := fmt.Sprintf("stopped at the time limit (%s) before the run was finished", e.Deadline.Format(time.DateTime))
	if len(e.Kept) == 0 {
		return msg + "; nothing finished was saved in " + e.Out + " yet"
	}
	return msg + "; kept in " + e.Out + ":\n  " + strings.Join(e.Kept, "\n  ")
}

// timeUp says whether work expected to take about next, started now,
// would end after the deadline (never, without one).
func (o Options) timeUp(next time.Duration) bool {
	return !o.Deadline.IsZero() && o.now().Add(next).After(o.Deadline)
}

func (o Options) now() time.Time {
	if o.clock != nil {
		return o.clock()
	}
	return time.Now()
}

// timeLimitError is err as a *TimeLimitError when err is errTimeUp.
func (o Options) timeLimitError(err error) error {
	if !errors.Is(err, errTimeUp) {
		return err
	}
	return &TimeLimitError{Out: o.Out, Deadline: o.Deadline, Kept: o.Status.Kept()}
}

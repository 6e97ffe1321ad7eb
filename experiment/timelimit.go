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

// limitTooShort is the error of a resumed sitting whose whole time limit
// is shorter than a typical epoch of those kept (r.longest): no sitting
// of that length can train one, so asking for another would repeat this.
func (r *runner) limitTooShort(limit time.Duration) error {
	enough := (r.longest + r.longest/10 + time.Minute - 1).Truncate(time.Minute)
	return fmt.Errorf("the time limit (%s) is shorter than an epoch of %s (about %s: the median training and evaluation time of the %d epochs kept), so no sitting that long can train one; give a limit of at least %s",
		limit.Round(time.Second), r.exp.Name, r.longest.Round(time.Second), r.b.tr.Completed(), enough)
}

// timeLimitError is err as a *TimeLimitError when err is errTimeUp.
func (o Options) timeLimitError(err error) error {
	if !errors.Is(err, errTimeUp) {
		return err
	}
	return &TimeLimitError{Out: o.Out, Deadline: o.Deadline, Kept: o.Status.Kept()}
}

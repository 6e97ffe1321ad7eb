// Package progress shows how far long work (training epochs, AIS runs) has
// come: a label, done/total, the rate and the time left, redrawn in place on
// a terminal.
//
// A *Bar is safe for concurrent use: Add may be called from many goroutines
// (the count is an atomic counter; drawing takes a lock only when a redraw
// is due). A nil *Bar is valid and does nothing, so callers never need an
// if:
//
//	bar := progress.New(os.Stderr, "epochs", int64(cfg.Epochs))
//	defer bar.Done()
//	for ... { ...; bar.Add(1) }
//
// On a terminal (Live mode) the line is redrawn with "\r" at most five times
// a second and Done ends it with the elapsed time and a newline. When the
// writer is not a terminal (a file, a pipe, a CI log) the bar is quiet
// until Done, which prints one summary line, so logs get one line per bar
// instead of a stream of carriage returns.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Mode says how a Bar draws.
type Mode int

const (
	// Auto is Live when the writer is an *os.File on a character device
	// (a terminal) and Summary otherwise.
	Auto Mode = iota
	// Live redraws one line in place with "\r" while work goes on and ends
	// it at Done.
	Live
	// Summary prints nothing until Done, then one line.
	Summary
	// Off prints nothing at all (New returns a nil, no-op Bar).
	Off
)

// DefaultInterval is the least time between two redraws in Live mode
// (at most five redraws a second).
const DefaultInterval = 200 * time.Millisecond

// Options adjust NewWith. The zero value means: detect the terminal, use
// the wall clock and DefaultInterval.
type Options struct {
	Mode Mode
	// Now is the clock (for tests); nil means time.Now.
	Now func() time.Time
	// Interval is the least time between redraws; 0 means DefaultInterval.
	Interval time.Duration
}

// Bar reports the progress of one piece of work. Create it with New or
// NewWith; a nil *Bar is a valid bar that does nothing.
type Bar struct {
	done     atomic.Int64
	next     atomic.Int64 // nanoseconds since start before which Add does not redraw
	finished atomic.Bool

	w        io.Writer
	label    string
	total    int64
	mode     Mode // Live or Summary
	now      func() time.Time
	start    time.Time
	interval time.Duration

	mu      sync.Mutex // serialises drawing
	lastLen int        // characters of the line drawn last (to blank its tail)
	buf     []byte
}

// New returns a bar for total units of work (total ≤ 0: unknown) labelled
// label, writing to w in Auto mode; a nil w gives a nil (no-op) bar.
func New(w io.Writer, label string, total int64) *Bar {
	return NewWith(w, label, total, Options{})
}

// NewWith is New with options. It returns nil (a no-op bar) for Mode Off or
// a nil writer. In Live mode the first line is drawn at once.
func NewWith(w io.Writer, label string, total int64, o Options) *Bar {
	if w == nil || o.Mode == Off {
		return nil
	}
	mode := o.Mode
	if mode == Auto {
		mode = Summary
		if IsTerminal(w) {
			mode = Live
		}
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	interval := o.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	b := &Bar{w: w, label: label, total: total, mode: mode, now: now, start: now(), interval: interval}
	if mode == Live {
		b.mu.Lock()
		b.draw(0, false)
		b.next.Store(int64(interval))
		b.mu.Unlock()
	}
	return b
}

// IsTerminal reports whether w is an *os.File on a character device, the
// test Auto uses (no dependency on a terminal library).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Add records n more units done. It is safe to call from several
// goroutines; in Live mode it redraws when the last redraw is at least the
// interval old. Without a redraw it costs an atomic add and a clock read
// (about 60 ns; 7 ns in Summary mode) and does not allocate. Adds after Done
// are counted but not drawn.
func (b *Bar) Add(n int64) {
	if b == nil {
		return
	}
	b.done.Add(n)
	if b.mode != Live || b.finished.Load() {
		return
	}
	el := int64(b.now().Sub(b.start))
	if el < b.next.Load() || !b.mu.TryLock() {
		return // not due, or another goroutine is drawing right now
	}
	defer b.mu.Unlock()
	if b.finished.Load() || el < b.next.Load() {
		return
	}
	b.draw(time.Duration(el), false)
	b.next.Store(el + int64(b.interval))
}

// Count returns the units done so far (0 for a nil bar).
func (b *Bar) Count() int64 {
	if b == nil {
		return 0
	}
	return b.done.Load()
}

// Done ends the bar: in Live mode the line is redrawn a last time with the
// elapsed time and ended with a newline; in Summary mode the same line is
// printed once. Later calls, and Adds after Done, print nothing.
func (b *Bar) Done() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished.Swap(true) {
		return
	}
	b.draw(b.now().Sub(b.start), true)
}

// draw writes the current line; b.mu must be held. Write errors are
// ignored: progress is a courtesy and must not fail the work.
func (b *Bar) draw(elapsed time.Duration, final bool) {
	done := b.done.Load()
	line := b.buf[:0]
	if b.mode == Live {
		line = append(line, '\r')
	}
	start := len(line)
	line = append(line, b.label...)
	line = append(line, "  "...)
	line = fmt.Appendf(line, "%d", done)
	if b.total > 0 {
		line = fmt.Appendf(line, "/%d (%d%%)", b.total, done*100/b.total)
	}
	var rate float64
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
		line = append(line, "  "...)
		line = appendRate(line, rate)
	}
	switch {
	case final && (b.total <= 0 || done >= b.total):
		line = append(line, "  done in "...)
		line = appendDuration(line, elapsed.Seconds())
	case final:
		line = append(line, "  stopped after "...)
		line = appendDuration(line, elapsed.Seconds())
	case b.total > 0 && rate > 0 && done < b.total:
		line = append(line, "  ETA "...)
		line = appendDuration(line, float64(b.total-done)/rate)
	}
	n := utf8.RuneCount(line[start:])
	if b.mode == Live && n < b.lastLen {
		line = append(line, strings.Repeat(" ", b.lastLen-n)...)
	}
	b.lastLen = n
	if final {
		line = append(line, '\n')
	}
	b.w.Write(line)
	b.buf = line[:0]
}

// appendRate formats units per second with three significant digits or
// more: 1234/s, 56.7/s, 8.90/s, 0.12/s.
func appendRate(dst []byte, r float64) []byte {
	switch {
	case r >= 100:
		return fmt.Appendf(dst, "%.0f/s", r)
	case r >= 10:
		return fmt.Appendf(dst, "%.1f/s", r)
	}
	return fmt.Appendf(dst, "%.2f/s", r)
}

// appendDuration formats s seconds as 4.2s, 42s, 3m07s or 2h05m (at most
// 9999h59m).
func appendDuration(dst []byte, s float64) []byte {
	s = min(max(s, 0), 9999*3600+59*60)
	switch {
	case s < 10:
		return fmt.Appendf(dst, "%.1fs", s)
	case s < 60:
		return fmt.Appendf(dst, "%ds", int(s))
	case s < 3600:
		m := int(s) / 60
		return fmt.Appendf(dst, "%dm%02ds", m, int(s)-60*m)
	}
	h := int(s) / 3600
	return fmt.Appendf(dst, "%dh%02dm", h, (int(s)-3600*h)/60)
}

// Delayed returns a callback for work reported in stages as cumulative
// (done, total) counts of unit — such as reading and then resolving the
// experiments of a config — that stays silent while the work is quick: a
// stage gets a bar labelled prefix + stage on w (options o) only once the
// work has taken after, counted from the first call. When the bar is not
// live (w is not a terminal) a line "<prefix><stage> <total> <unit>…" says
// at once what is going on, and the bar's summary line follows at the end.
// A report with done ≥ total ends the stage's bar. The callback is for one
// goroutine.
func Delayed(w io.Writer, prefix, unit string, after time.Duration, o Options) func(stage string, done, total int) {
	now := o.Now
	if now == nil {
		now = time.Now
		o.Now = now
	}
	var start time.Time
	var bar *Bar
	var stage string
	var last int64
	return func(s string, done, total int) {
		if start.IsZero() {
			start = now()
		}
		if s != stage {
			bar.Done()
			bar, stage, last = nil, s, 0
		}
		if bar == nil && now().Sub(start) >= after {
			bar = NewWith(w, prefix+s, int64(total), o)
			if bar != nil && bar.mode != Live {
				fmt.Fprintf(w, "%s%s %d %s…\n", prefix, s, total, unit)
			}
		}
		if bar != nil {
			bar.Add(int64(done) - last)
			last = int64(done)
			if done >= total {
				bar.Done()
				bar, stage = nil, ""
			}
		}
	}
}

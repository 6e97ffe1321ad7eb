package progress

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestLive(t *testing.T) {
	clk := newClock()
	var buf bytes.Buffer
	b := NewWith(&buf, "AIS runs", 100, Options{Mode: Live, Now: clk.Now})
	if got := buf.String(); got != "\rAIS runs  0/100 (0%)" {
		t.Fatalf("first draw %q", got)
	}
	buf.Reset()

	clk.Advance(100 * time.Millisecond)
	b.Add(10) // 100 ms after the first draw: too soon, no redraw
	if buf.Len() != 0 {
		t.Fatalf("redrew after 100 ms: %q", buf.String())
	}
	clk.Advance(100 * time.Millisecond)
	b.Add(10) // 200 ms: due
	if got, want := buf.String(), "\rAIS runs  20/100 (20%)  100/s  ETA 0.8s"; got != want {
		t.Fatalf("redraw %q, want %q", got, want)
	}
	buf.Reset()

	clk.Advance(59*time.Second + 800*time.Millisecond)
	b.Add(-10) // a count may also go down (e.g. a retry); rate 10/60 s
	want := "\rAIS runs  10/100 (10%)  0.17/s  ETA 9m00s"
	if got := buf.String(); got != want {
		t.Fatalf("redraw %q, want %q", got, want)
	}
	buf.Reset()

	clk.Advance(60 * time.Second)
	b.Add(90)
	// The line is shorter than the last one: blanks cover the old tail.
	want2 := "\rAIS runs  100/100 (100%)  0.83/s"
	if got := buf.String(); got != want2+strings.Repeat(" ", len([]rune(want))-len([]rune(want2))) {
		t.Fatalf("redraw %q", got)
	}
	buf.Reset()

	clk.Advance(5 * time.Second)
	b.Done()
	if got, want := buf.String(), "\rAIS runs  100/100 (100%)  0.80/s  done in 2m05s\n"; got != want {
		t.Fatalf("final line %q, want %q", got, want)
	}
	buf.Reset()
	b.Add(5)
	clk.Advance(time.Hour)
	b.Add(5)
	b.Done()
	if buf.Len() != 0 {
		t.Fatalf("output after Done: %q", buf.String())
	}
	if b.Count() != 110 {
		t.Fatalf("Count = %d, want 110", b.Count())
	}
}

func TestLiveRateLimit(t *testing.T) {
	clk := newClock()
	var buf bytes.Buffer
	b := NewWith(&buf, "epochs", 0, Options{Mode: Live, Now: clk.Now})
	for range 1000 { // one Add per millisecond for 1 s
		clk.Advance(time.Millisecond)
		b.Add(1)
	}
	// The first draw plus at most one per 200 ms.
	if n := strings.Count(buf.String(), "\r"); n < 5 || n > 6 {
		t.Fatalf("%d draws in 1 s, want 5 or 6 (≤ 5 per second):\n%q", n, buf.String())
	}
	buf.Reset()
	b.Done()
	// Unknown total: no percentage and no ETA.
	if got, want := buf.String(), "\repochs  1000  1000/s  done in 1.0s\n"; got != want {
		t.Fatalf("final line %q, want %q", got, want)
	}
}

func TestSummaryWhenNotATerminal(t *testing.T) {
	clk := newClock()
	var buf bytes.Buffer
	b := NewWith(&buf, "train", 10, Options{Now: clk.Now}) // Auto: a buffer is not a terminal
	for range 7 {
		clk.Advance(time.Second)
		b.Add(1)
	}
	if buf.Len() != 0 {
		t.Fatalf("summary bar printed before Done: %q", buf.String())
	}
	b.Done()
	b.Done()
	if got, want := buf.String(), "train  7/10 (70%)  1.00/s  stopped after 7.0s\n"; got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}

	// The same through a regular file, which Auto must not take for a terminal.
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("a regular file is reported as a terminal")
	}
	b = NewWith(f, "x", 2, Options{Now: clk.Now})
	b.Add(2)
	clk.Advance(90 * time.Minute)
	b.Done()
	got, _ := os.ReadFile(f.Name())
	if string(got) != "x  2/2 (100%)  0.00/s  done in 1h30m\n" {
		t.Fatalf("file got %q", got)
	}
	if IsTerminal(&buf) || IsTerminal(nil) || IsTerminal((*os.File)(nil)) {
		t.Fatal("IsTerminal true for a non-file")
	}
}

func TestDisabled(t *testing.T) {
	var b *Bar
	b.Add(3) // a nil bar is a no-op, not a panic
	b.Done()
	if b.Count() != 0 {
		t.Fatal("nil bar counts")
	}
	if New(nil, "x", 1) != nil {
		t.Fatal("New(nil writer) is not the nil bar")
	}
	var buf bytes.Buffer
	b = NewWith(&buf, "x", 1, Options{Mode: Off})
	b.Add(1)
	b.Done()
	if b != nil || buf.Len() != 0 {
		t.Fatalf("Off bar %v printed %q", b, buf.String())
	}
}

// lockedWriter lets the race detector see that the bar serialises writes.
type lockedWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	if !w.mu.TryLock() {
		panic("concurrent Write")
	}
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func TestConcurrentAdd(t *testing.T) {
	var w lockedWriter
	b := NewWith(&w, "chains", 8*5000, Options{Mode: Live, Interval: time.Microsecond})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5000 {
				b.Add(1)
			}
		})
	}
	wg.Wait()
	b.Done()
	out := w.b.String()
	if !strings.HasSuffix(out, "\n") || !strings.Contains(out[strings.LastIndex(out, "\r"):], "chains  40000/40000 (100%)") {
		t.Fatalf("final line %q", out[strings.LastIndex(out, "\r"):])
	}
	if b.Count() != 40000 {
		t.Fatalf("Count = %d", b.Count())
	}
}

func TestAppendDuration(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0, "0.0s"}, {4.25, "4.2s"}, {42.9, "42s"}, {187, "3m07s"}, {7500, "2h05m"}, {-1, "0.0s"}, {1e30, "9999h59m"},
	} {
		if got := string(appendDuration(nil, c.s)); got != c.want {
			t.Errorf("appendDuration(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}

func BenchmarkAdd(b *testing.B) {
	bar := NewWith(io.Discard, "bench", int64(b.N), Options{Mode: Live})
	b.ReportAllocs()
	for b.Loop() {
		bar.Add(1)
	}
	bar.Done()
}

func BenchmarkAddParallel(b *testing.B) {
	bar := NewWith(io.Discard, "bench", 0, Options{Mode: Live})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			bar.Add(1)
		}
	})
	bar.Done()
}

func BenchmarkAddSummary(b *testing.B) {
	bar := NewWith(io.Discard, "bench", 0, Options{Mode: Summary})
	b.ReportAllocs()
	for b.Loop() {
		bar.Add(1)
	}
	bar.Done()
}

// TestDelayed checks that staged work is silent while quick, gets a bar
// (with a start line when not live) once slow, and ends each stage's bar.
func TestDelayed(t *testing.T) {
	clk := newClock()
	var buf bytes.Buffer
	report := Delayed(&buf, "config big.yaml: ", "experiments", 2*time.Second, Options{Mode: Summary, Now: clk.Now})
	report("reading", 1024, 4096)
	clk.Advance(time.Second)
	report("reading", 2048, 4096)
	if buf.Len() != 0 {
		t.Fatalf("quick work printed %q", buf.String())
	}
	clk.Advance(time.Second) // 2 s since the first report: open a bar
	report("reading", 3072, 4096)
	if got, want := buf.String(), "config big.yaml: reading 4096 experiments…\n"; got != want {
		t.Fatalf("start line %q, want %q", got, want)
	}
	buf.Reset()
	clk.Advance(time.Second)
	report("reading", 4096, 4096)
	if got, want := buf.String(), "config big.yaml: reading  4096/4096 (100%)  4096/s  done in 1.0s\n"; got != want {
		t.Fatalf("end line %q, want %q", got, want)
	}
	buf.Reset()
	report("resolving", 100, 4096) // the next stage is late already
	clk.Advance(4 * time.Second)
	report("resolving", 4096, 4096)
	want := "config big.yaml: resolving 4096 experiments…\nconfig big.yaml: resolving  4096/4096 (100%)  1024/s  done in 4.0s\n"
	if got := buf.String(); got != want {
		t.Fatalf("second stage %q, want %q", got, want)
	}

	// Live: no start line; the bar is redrawn and ended.
	buf.Reset()
	clk2 := newClock()
	report = Delayed(&buf, "c: ", "experiments", 0, Options{Mode: Live, Now: clk2.Now})
	report("reading", 0, 10)
	clk2.Advance(time.Second)
	report("reading", 10, 10)
	if got := buf.String(); !strings.HasPrefix(got, "\rc: reading  0/10 (0%)") || !strings.HasSuffix(got, "done in 1.0s\n") {
		t.Fatalf("live %q", got)
	}
}

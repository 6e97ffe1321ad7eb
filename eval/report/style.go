package report

import (
	"fmt"
	"hash/fnv"
	"image/color"
	"strings"

	"gonum.org/v1/plot/vg/draw"
)

// SeriesStyle is how one estimator and start is drawn in every figure:
// its colour, its mark and whether the mark is filled.
type SeriesStyle struct {
	Color color.Color
	Shape draw.GlyphDrawer
}

// estimatorHues are the colours of the estimators (one hue each, shaded
// per start); exact is black. Colour-blind-safe where possible (Okabe–Ito).
var estimatorHues = map[string]color.NRGBA{
	"exact":     {0, 0, 0, 255},
	"ais":       {0, 114, 178, 255},   // blue
	"raise":     {213, 94, 0, 255},    // vermilion
	"csl":       {0, 158, 115, 255},   // bluish green
	"chi2":      {204, 121, 167, 255}, // reddish purple
	"is":        {230, 159, 0, 255},   // orange
	"elbo":      {86, 180, 233, 255},  // sky blue
	"iwae":      {120, 80, 40, 255},   // brown
	"mf-bound":  {140, 140, 140, 255}, // grey
	"dbn-bound": {90, 90, 90, 255},    // dark grey
	"bdmc":      {0, 110, 110, 255},   // teal
	"ais-ratio": {60, 60, 160, 255},   // indigo
	"pll":       {120, 140, 20, 255},  // olive
	"recon":     {170, 60, 60, 255},   // brick
	"reference": {100, 100, 100, 255}, // grey
}

// estimatorMarks are the marks of the estimators: [filled, hollow].
var estimatorMarks = map[string][2]draw.GlyphDrawer{
	"exact":     {draw.CircleGlyph{}, draw.RingGlyph{}},
	"ais":       {draw.CircleGlyph{}, draw.RingGlyph{}},
	"raise":     {draw.PyramidGlyph{}, draw.TriangleGlyph{}},
	"csl":       {draw.CrossGlyph{}, draw.PlusGlyph{}},
	"chi2":      {draw.BoxGlyph{}, draw.SquareGlyph{}},
	"is":        {draw.PlusGlyph{}, draw.CrossGlyph{}},
	"elbo":      {draw.BoxGlyph{}, draw.SquareGlyph{}},
	"iwae":      {draw.PyramidGlyph{}, draw.TriangleGlyph{}},
	"mf-bound":  {draw.SquareGlyph{}, draw.BoxGlyph{}},
	"dbn-bound": {draw.TriangleGlyph{}, draw.PyramidGlyph{}},
	"bdmc":      {draw.RingGlyph{}, draw.CircleGlyph{}},
	"pll":       {draw.CircleGlyph{}, draw.RingGlyph{}},
	"recon":     {draw.BoxGlyph{}, draw.SquareGlyph{}},
}

// fallbackHues colour an estimator that estimatorHues does not name, by a
// hash of its name (so it keeps its colour from figure to figure).
var fallbackHues = []color.NRGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {188, 189, 34, 255},
}

var fallbackMarks = [][2]draw.GlyphDrawer{
	{draw.CircleGlyph{}, draw.RingGlyph{}}, {draw.PyramidGlyph{}, draw.TriangleGlyph{}},
	{draw.BoxGlyph{}, draw.SquareGlyph{}}, {draw.CrossGlyph{}, draw.PlusGlyph{}},
}

// startShade darkens (< 0) or lightens (> 0) an estimator's hue per start,
// and startHollow draws the start's mark hollow; the first start of an
// estimator ("" or base-rate) is the plain hue, filled.
var (
	startShade = map[string]float64{"": 0, "base-rate": 0, "uniform": -0.4, "data": 0.3, "reversed": -0.55, "gibbs": 0.3,
		"training": 0, "mixture": 0, "aux": -0.45}
	startHollow = map[string]bool{"uniform": true, "reversed": true, "training": true, "aux": true, "gibbs": true}
)

// StyleOf returns the colour and mark of an estimator and its start (init:
// "", "base-rate", "uniform", ...): the same pair in every figure, table
// and legend of a report. Figures name their series by rowLabel
// ("ais (uniform)"); StyleOfLabel parses such a name.
func StyleOf(estimator, init string) SeriesStyle {
	hue, ok := estimatorHues[estimator]
	marks, mok := estimatorMarks[estimator]
	if !ok || !mok {
		h := fnv.New32a()
		h.Write([]byte(estimator))
		n := h.Sum32()
		if !ok {
			hue = fallbackHues[n%uint32(len(fallbackHues))]
		}
		if !mok {
			marks = fallbackMarks[(n/8)%uint32(len(fallbackMarks))]
		}
	}
	shade, known := startShade[init]
	hollow := startHollow[init]
	if !known {
		h := fnv.New32a()
		h.Write([]byte(init))
		n := h.Sum32()
		shade = []float64{-0.2, -0.35, -0.5, 0.2}[n%4]
		hollow = n&4 != 0
	}
	if estimator == "exact" {
		shade = 0
	}
	shape := marks[0]
	if hollow {
		shape = marks[1]
	}
	return SeriesStyle{Color: shadeColor(hue, shade), Shape: shape}
}

// StyleOfLabel is StyleOf for a series name "estimator (start)" or
// "estimator"; a trailing ", K = …" or other qualifier inside the
// parentheses after the start is ignored, and "(training)" is the start
// "training".
func StyleOfLabel(label string) SeriesStyle {
	est, init := splitLabel(label)
	return StyleOf(est, init)
}

// splitLabel splits "ais (uniform, K = 100)" into "ais" and "uniform".
func splitLabel(label string) (estimator, init string) {
	label = strings.TrimPrefix(label, "final ")
	est, rest, ok := strings.Cut(label, " (")
	if !ok {
		f := strings.Fields(label)
		if len(f) == 0 {
			return "", ""
		}
		return f[0], ""
	}
	rest, _, _ = strings.Cut(rest, ")")
	init, _, _ = strings.Cut(rest, ",")
	init = strings.TrimSpace(init)
	if strings.HasPrefix(init, "K = ") {
		init = ""
	}
	return est, init
}

// Symbol returns a character that looks like the style's mark (● ○ ▲ △ ■
// □ × +), for tables that name a series beside its colour.
func (s SeriesStyle) Symbol() string {
	switch s.Shape.(type) {
	case draw.CircleGlyph:
		return "●"
	case draw.RingGlyph:
		return "○"
	case draw.PyramidGlyph:
		return "▲"
	case draw.TriangleGlyph:
		return "△"
	case draw.BoxGlyph:
		return "■"
	case draw.SquareGlyph:
		return "□"
	case draw.CrossGlyph:
		return "×"
	case draw.PlusGlyph:
		return "+"
	}
	return "●"
}

// CSSColor returns the style's colour as #rrggbb.
func (s SeriesStyle) CSSColor() string {
	r, g, b, _ := s.Color.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// shadeColor mixes c with black (f < 0) or white (f > 0) by |f|.
func shadeColor(c color.NRGBA, f float64) color.NRGBA {
	mix := func(v uint8) uint8 {
		if f < 0 {
			return uint8(float64(v) * (1 + f))
		}
		return uint8(float64(v) + (255-float64(v))*f)
	}
	return color.NRGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: c.A}
}

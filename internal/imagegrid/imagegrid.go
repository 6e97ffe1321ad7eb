// Package imagegrid composes grids of small grey images — model samples,
// first-layer filters, completion rows — and encodes them as PNG (stdlib
// image/png). It is image composition, not plotting: one pixel block per
// unit, no axes.
//
// A grid holds n tiles of h×w units from an n×(h·w) row-major array (tile
// k is values[k·h·w:(k+1)·h·w], unit (r, c) of a tile at r·w + c), in
// rows of Cols tiles, each unit drawn as a Scale×Scale block, tiles
// separated (and framed) by a 1-pixel grey line. Values are intensities
// in [0,1], 1 = white, 0 = black; with Normalize each tile is first
// scaled to its own range (its minimum black, its maximum white; a
// constant tile mid-grey), as filters are drawn.
package imagegrid

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"github.com/logz-ml/logz/internal/atomicfile"
)

// Separator is the grey level of the lines between tiles.
const Separator = 128

// MinTilePixels is the smallest side in pixels that DefaultScale gives a
// tile.
const MinTilePixels = 28

// MaxPixels bounds the image size (a typo must not allocate gigabytes).
const MaxPixels = 1 << 26

// Options lay out a grid.
type Options struct {
	// Cols is the number of tiles per row (≤ 0: ⌈√n⌉).
	Cols int
	// Scale is the side in pixels of one unit (≤ 0: DefaultScale).
	Scale int
	// Normalize scales each tile to its own range.
	Normalize bool
}

// Shape returns the tile shape (h rows, w columns) for d units: h the
// largest divisor of d that is at most √d, w = d/h — 28×28 for MNIST's
// 784, 4×5 for 20 units, 1×d for a prime d. Only a perfect square is an
// image's own shape; other shapes merely lay the units out.
func Shape(d int) (h, w int) {
	if d <= 0 {
		return 0, 0
	}
	h = int(math.Sqrt(float64(d)))
	for h*h > d {
		h--
	}
	for (h+1)*(h+1) <= d {
		h++
	}
	for d%h != 0 {
		h--
	}
	return h, d / h
}

// DefaultScale is the unit size that makes the longer side of an h×w tile
// at least MinTilePixels pixels.
func DefaultScale(h, w int) int {
	return max(1, (MinTilePixels+max(h, w)-1)/max(h, w))
}

// layout returns the columns of the grid and the pixels per unit.
func layout(n, h, w int, opt Options) (cols, scale int) {
	cols = opt.Cols
	if cols <= 0 {
		cols = int(math.Ceil(math.Sqrt(float64(n))))
	}
	scale = opt.Scale
	if scale <= 0 {
		scale = DefaultScale(h, w)
	}
	return min(cols, n), scale
}

// CheckSize reports a grid of n tiles of h×w units that Draw would refuse
// as larger than MaxPixels, so that a caller can refuse it before it
// computes the values.
func CheckSize(n, h, w int, opt Options) error {
	if n < 1 || h < 1 || w < 1 {
		return nil
	}
	cols, s := layout(n, h, w, opt)
	rows := (n + cols - 1) / cols
	W := float64(cols)*(float64(w)*float64(s)+1) + 1
	H := float64(rows)*(float64(h)*float64(s)+1) + 1
	if W*H > MaxPixels {
		return fmt.Errorf("imagegrid: a %.0f×%.0f-pixel image of %d tiles is too large (at most %d pixels)", W, H, n, MaxPixels)
	}
	return nil
}

// Draw composes n tiles of h×w units from values (n·h·w entries, finite).
// Without Normalize a value outside [0,1] is an error.
func Draw(values []float64, n, h, w int, opt Options) (*image.Gray, error) {
	if n < 1 || h < 1 || w < 1 {
		return nil, fmt.Errorf("imagegrid: want at least one tile of at least 1×1 units, got %d tiles of %d×%d", n, h, w)
	}
	if len(values) != n*h*w {
		return nil, fmt.Errorf("imagegrid: %d values for %d tiles of %d×%d units (want %d)", len(values), n, h, w, n*h*w)
	}
	if err := CheckSize(n, h, w, opt); err != nil {
		return nil, err
	}
	cols, s := layout(n, h, w, opt)
	rows := (n + cols - 1) / cols
	W, H := cols*(w*s+1)+1, rows*(h*s+1)+1
	img := image.NewGray(image.Rect(0, 0, W, H))
	for i := range img.Pix {
		img.Pix[i] = Separator
	}
	for k := range n {
		tile := values[k*h*w : (k+1)*h*w]
		lo, scale := 0.0, 1.0
		if opt.Normalize {
			lo, scale = tileRange(tile)
		}
		x0, y0 := (k%cols)*(w*s+1)+1, (k/cols)*(h*s+1)+1
		for r := range h {
			for c := range w {
				v := tile[r*w+c]
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("imagegrid: tile %d unit %d is %v, not a finite number", k, r*w+c, v)
				}
				g := (v - lo) * scale
				if !opt.Normalize && (g < 0 || g > 1) {
					return nil, fmt.Errorf("imagegrid: tile %d unit %d is %v, outside [0,1]", k, r*w+c, v)
				}
				gray := color.Gray{Y: uint8(math.Round(255 * min(max(g, 0), 1)))}
				for dy := range s {
					for dx := range s {
						img.SetGray(x0+c*s+dx, y0+r*s+dy, gray)
					}
				}
			}
		}
	}
	return img, nil
}

// tileRange returns the offset and factor that map a tile's range to
// [0,1]: (min, 1/(max−min)), or a constant tile to ½.
func tileRange(tile []float64) (lo, scale float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range tile {
		lo, hi = min(lo, v), max(hi, v)
	}
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return lo - 0.5, 1
	}
	return lo, 1 / (hi - lo)
}

// Encode writes img as PNG.
func Encode(w io.Writer, img image.Image) error { return png.Encode(w, img) }

// WritePNG writes img to path as PNG, atomically.
func WritePNG(path string, img image.Image) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error { return Encode(w, img) })
}

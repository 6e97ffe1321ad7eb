package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/atomicfile"
	"github.com/logz-ml/logz/internal/imagegrid"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/models"
	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// Files of the samples and pictures the runner writes in an experiment's
// folder after the final evaluation (see DrawImages).
const (
	SamplesFile     = samplesFile // N×D float64
	SamplesInfoFile = "samples.json"
	SamplesPNG      = "samples.png"
	FiltersPNG      = "filters.png"
	// CompletionName is the stem of the sbn completion estimator's
	// artifact: completion.npy, completion.json, completion.png.
	CompletionName = "completion"
)

// SamplesInfo is samples.json: how samples.npy was drawn, for a caption,
// and the tile shape samples.png and filters.png draw D units in.
type SamplesInfo struct {
	// Family is the model type.
	Family string `json:"family"`
	sampling.Drawn
	Seed uint64 `json:"seed"`
	// Tile is the shape (rows, cols) of one sample's tile.
	Tile [2]int `json:"tile"`
	// Image says Tile is the data's own image shape (D a perfect square,
	// or the model's grid); false: it only lays the D units out.
	Image bool `json:"image"`
}

// writeSamples draws NumSamples samples of m when the family can
// (sampling.Sampler; DefaultSampleSteps sweeps from the family's default
// start, the probabilities of the last step) from seed, and writes
// samples.npy, samples.json and samples.png, and filters.png when the
// family has first-layer filters, into dir, atomically.
func writeSamples(fam *family.Family, m models.Model, dir string, seed uint64, train data.Examples, workers int, st *Status) error {
	sampler, ok := sampling.SamplerOf(fam)
	if !ok {
		return nil
	}
	o := sampling.SampleOptions{N: NumSamples, Mean: true, Data: train, Seed: seed, Workers: workers}
	if sampling.SampleInits(fam) != nil {
		o.Steps = sampling.DefaultSampleSteps
	}
	d, err := sampler.Sample(m, o)
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	if len(d.X) != d.N*d.D || d.D != m.NumVisible() {
		return fmt.Errorf("samples: the family returned %d values as %d×%d for a model of %d visible units", len(d.X), d.N, d.D, m.NumVisible())
	}
	h, w, image := sampling.TileShape(m)
	info := SamplesInfo{Family: fam.Name, Drawn: *d, Seed: seed, Tile: [2]int{h, w}, Image: image}
	return st.write(func() error {
		if err := atomicfile.WriteFile(filepath.Join(dir, SamplesFile), func(w io.Writer) error {
			return npyio.Write(w, mat.NewDense(d.N, d.D, d.X))
		}); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(dir, SamplesInfoFile), info); err != nil {
			return err
		}
		if err := drawSamples(dir, d.X, d.N, info); err != nil {
			return err
		}
		_, err := drawFilters(fam, m, dir)
		return err
	})
}

// writeArtifact writes an estimator's picture into dir: <name>.npy,
// <name>.json and <name>.png.
func writeArtifact(dir string, a sampling.Artifact) error {
	if err := a.Check(); err != nil {
		return err
	}
	base := filepath.Join(dir, a.Name)
	n, d := a.Rows*a.Cols, a.TileRows*a.TileCols
	if err := atomicfile.WriteFile(base+".npy", func(w io.Writer) error {
		return npyio.Write(w, mat.NewDense(n, d, a.X))
	}); err != nil {
		return err
	}
	if err := writeJSON(base+".json", a); err != nil {
		return err
	}
	return drawArtifact(base+".png", a)
}

func drawArtifact(path string, a sampling.Artifact) error {
	img, err := imagegrid.Draw(a.X, a.Rows*a.Cols, a.TileRows, a.TileCols, imagegrid.Options{Cols: a.Cols})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return imagegrid.WritePNG(path, img)
}

func drawSamples(dir string, x []float64, n int, info SamplesInfo) error {
	path := filepath.Join(dir, SamplesPNG)
	img, err := imagegrid.Draw(x, n, info.Tile[0], info.Tile[1], imagegrid.Options{})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return imagegrid.WritePNG(path, img)
}

// drawFilters writes filters.png, one tile per hidden unit of the
// family's first-layer weights, each tile scaled to its own range, and
// says whether it did: nothing for a family without them.
func drawFilters(fam *family.Family, m models.Model, dir string) (bool, error) {
	f, ok := sampling.FiltersOf(fam, m)
	if !ok {
		return false, nil
	}
	h, w, _ := sampling.TileShape(m)
	if h*w != f.Visible || len(f.W) != f.Visible*f.Hidden {
		return false, fmt.Errorf("filters: %d weights as %d×%d for tiles of %d×%d", len(f.W), f.Visible, f.Hidden, h, w)
	}
	tiles := make([]float64, 0, len(f.W))
	for j := range f.Hidden {
		tiles = append(tiles, f.Column(j)...)
	}
	path := filepath.Join(dir, FiltersPNG)
	img, err := imagegrid.Draw(tiles, f.Hidden, h, w, imagegrid.Options{Normalize: true})
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, imagegrid.WritePNG(path, img)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// Redrawn is what DrawImages did in an experiment folder.
type Redrawn struct {
	// Drawn are the pictures it redrew (file names, e.g. samples.png).
	Drawn []string
	// Stale are the pictures it could not redraw because a file they are
	// drawn from is missing, each with that file ("samples.png (no
	// samples.npy)"). They are left as they were; report.html says
	// under each that it was not redrawn (staleSource).
	Stale []string
}

// imageSources are the files each picture of an experiment folder is
// drawn from.
var imageSources = map[string][]string{
	SamplesPNG:                            {SamplesFile},
	FiltersPNG:                            {modelFile},
	CompletionName + ".png":               {CompletionName + ".npy", CompletionName + ".json"},
	sampling.QComponentsArtifact + ".png": {sampling.QComponentsArtifact + ".npy", sampling.QComponentsArtifact + ".json"},
	sampling.QChainsArtifact + ".png":     {sampling.QChainsArtifact + ".npy", sampling.QChainsArtifact + ".json"},
}

// artifactNames are the stems of the estimators' and the families'
// pictures (sampling.Artifact) that DrawImages redraws from their .npy and
// .json.
var artifactNames = []string{CompletionName, sampling.QComponentsArtifact, sampling.QChainsArtifact}

// staleSource returns the first file that picture (a file name of
// imageSources) in dir is drawn from and that is missing, or "".
func staleSource(dir, picture string) string {
	for _, src := range imageSources[picture] {
		if _, err := os.Stat(filepath.Join(dir, src)); errors.Is(err, fs.ErrNotExist) {
			return src
		}
	}
	return ""
}

// DrawImages redraws the pictures of an experiment's folder from its
// files, without training or sampling: samples.png from samples.npy (in
// the tile shape of samples.json, else imagegrid.Shape's), filters.png
// from model.npz (families with Family.Filters), completion.png from
// completion.npy and completion.json, and the χ² proposal's
// q-components.png and q-chains.png from theirs. A picture whose files
// are absent is not redrawn: it is left as it was and listed in
// Redrawn.Stale. A folder with none of these files and no picture is an
// error. The model types' families must be registered (import
// family/all).
func DrawImages(expDir string) (Redrawn, error) {
	r, drew, err := drawImages(expDir)
	if err == nil && !drew && len(r.Stale) == 0 {
		err = fmt.Errorf("%s holds none of %s, %s or %s.npy: nothing to draw", expDir, SamplesFile, modelFile, CompletionName)
	}
	return r, err
}

// drawImages is DrawImages, and says whether it found a file to draw from.
func drawImages(expDir string) (r Redrawn, drew bool, err error) {
	x, err := npyx.ReadFile(filepath.Join(expDir, SamplesFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return r, drew, fmt.Errorf("%s: %w", filepath.Join(expDir, SamplesFile), err)
	default:
		if len(x.Shape) != 2 {
			return r, drew, fmt.Errorf("%s: shape %v, want N×D", filepath.Join(expDir, SamplesFile), x.Shape)
		}
		var info SamplesInfo
		b, err := os.ReadFile(filepath.Join(expDir, SamplesInfoFile))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			info.Tile[0], info.Tile[1] = imagegrid.Shape(x.Shape[1])
		case err != nil:
			return r, drew, err
		default:
			if err := json.Unmarshal(b, &info); err != nil {
				return r, drew, fmt.Errorf("%s: %w", filepath.Join(expDir, SamplesInfoFile), err)
			}
			if info.Tile[0]*info.Tile[1] != x.Shape[1] {
				return r, drew, fmt.Errorf("%s: tile %v does not hold the %d units of %s", filepath.Join(expDir, SamplesInfoFile), info.Tile, x.Shape[1], SamplesFile)
			}
		}
		if err := drawSamples(expDir, x.Data, x.Shape[0], info); err != nil {
			return r, drew, err
		}
		drew = true
		r.Drawn = append(r.Drawn, SamplesPNG)
	}
	mpath := filepath.Join(expDir, modelFile)
	if _, err := os.Stat(mpath); err == nil {
		c, err := models.Load(mpath, family.Codecs())
		if err != nil {
			return r, drew, err
		}
		fam, err := family.Lookup(c.Model.TypeName())
		if err != nil {
			return r, drew, fmt.Errorf("%s: %w", mpath, err)
		}
		filters, err := drawFilters(fam, c.Model, expDir)
		if err != nil {
			return r, drew, err
		}
		drew = true
		if filters {
			r.Drawn = append(r.Drawn, FiltersPNG)
		}
	}
	for _, name := range artifactNames {
		if staleSource(expDir, name+".png") != "" {
			continue // no files to draw from; a picture left is reported stale below
		}
		base := filepath.Join(expDir, name)
		b, err := os.ReadFile(base + ".json")
		if err != nil {
			return r, drew, err
		}
		var a sampling.Artifact
		if err := json.Unmarshal(b, &a); err != nil {
			return r, drew, fmt.Errorf("%s.json: %w", base, err)
		}
		arr, err := npyx.ReadFile(base + ".npy")
		if err != nil {
			return r, drew, fmt.Errorf("%s.npy: %w", base, err)
		}
		a.X = arr.Data
		if err := a.Check(); err != nil {
			return r, drew, fmt.Errorf("%s.npy: %w", base, err)
		}
		if err := drawArtifact(base+".png", a); err != nil {
			return r, drew, err
		}
		drew = true
		r.Drawn = append(r.Drawn, name+".png")
	}
	for _, im := range reportImages {
		if _, err := os.Stat(filepath.Join(expDir, im.file)); err != nil {
			continue
		}
		if src := staleSource(expDir, im.file); src != "" {
			r.Stale = append(r.Stale, fmt.Sprintf("%s (no %s)", im.file, src))
		}
	}
	return r, drew, nil
}

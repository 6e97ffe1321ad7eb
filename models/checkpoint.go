package models

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/logz-ml/logz/internal/atomicfile"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/internal/provenance"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// FormatVersion is the model.npz format written by this version of logz.
const FormatVersion = 1

// Meta is the JSON object stored, UTF-8 encoded, in the uint8 array "meta".
type Meta struct {
	Type       string `json:"type"`
	Format     int    `json:"format"`
	Experiment string `json:"experiment,omitempty"`
	// Epoch is the number of completed training epochs.
	Epoch int `json:"epoch,omitempty"`
	// Train holds trainer state that is not an array (schedule position,
	// generator seeds, ...), opaque to this package.
	Train json.RawMessage `json:"train,omitempty"`
	// Version is the logz version that wrote the file.
	Version string `json:"logz_version,omitempty"`
	// Run, in a file written by a logz run, says what that experiment
	// trained and evaluated on; nil in files written otherwise.
	Run *RunRecord `json:"run,omitempty"`
	// ModelOnly, in a file written by logz export, says it holds the
	// model without the trainer's state (but any fitted proposal the
	// estimators read): it can be evaluated and sampled, not resumed.
	ModelOnly bool `json:"model_only,omitempty"`
}

// RunRecord is what the experiment that wrote a checkpoint trained and
// evaluated on: logz eval reads it to evaluate the model as the run did,
// and --resume refuses a run whose data differ from it.
type RunRecord struct {
	// Config is the experiment's resolved config, as a logz config file
	// of that one experiment (YAML): its data, seeds and estimates.
	Config string `json:"config"`
	// Train is the training set as trained on (after any validation
	// split was held out).
	Train provenance.Data `json:"train"`
	// Splits are the evaluated splits by name (train, valid, test), each
	// as evaluated.
	Splits map[string]provenance.Data `json:"splits,omitempty"`
}

// StatePrefix starts the names of arrays that hold training state (momentum
// buffers, persistent chains, generator state) rather than parameters.
const StatePrefix = "state_"

// Checkpoint is the content of a model.npz: the model, its meta and any
// training state needed to resume bit-for-bit.
type Checkpoint struct {
	Model Model
	Meta  Meta
	// State arrays are saved as "state_<key>".
	State map[string]Array
	// Bytes are saved as uint8 arrays "state_<key>" (e.g. PCG generator state).
	Bytes map[string][]byte
}

// Save writes c to path atomically (atomicfile: a temporary file in the same
// directory, synced, then renamed over path), so a crash leaves the old file
// intact. The model's type must be among known.
func Save(path string, c *Checkpoint, known Codecs) error {
	t, err := known.Lookup(c.Model.TypeName())
	if err != nil {
		return err
	}
	meta := c.Meta
	meta.Type, meta.Format = t.Name, FormatVersion
	js, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, func(f io.Writer) error {
		w := npz.NewWriter(f)
		for _, a := range t.Arrays(c.Model) {
			if err := writeArray(w, a.Name, a); err != nil {
				return err
			}
		}
		for _, k := range sortedKeys(c.State) {
			if err := writeArray(w, StatePrefix+k, c.State[k]); err != nil {
				return err
			}
		}
		for _, k := range sortedKeys(c.Bytes) {
			if err := w.Write(StatePrefix+k, append([]uint8(nil), c.Bytes[k]...)); err != nil {
				return err
			}
		}
		if err := w.Write("meta", []uint8(js)); err != nil {
			return err
		}
		return w.Close()
	})
}

func writeArray(w *npz.Writer, name string, a Array) error {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	if n != len(a.Data) {
		return fmt.Errorf("array %s: shape %v but %d values", name, a.Shape, len(a.Data))
	}
	switch len(a.Shape) {
	case 1:
		return w.Write(name, a.Data)
	case 2:
		if n == 0 {
			return fmt.Errorf("array %s: empty", name)
		}
		return w.Write(name, mat.NewDense(a.Shape[0], a.Shape[1], a.Data))
	}
	return fmt.Errorf("array %s: %d-D arrays are not supported", name, len(a.Shape))
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Load reads a model.npz. A file with a "meta" array is decoded as the type it
// names, which must be among known; one without (e.g. np.savez("m.npz", W=W,
// vbias=a, hbias=b)) is recognised among known by its array names. Errors
// name the file.
func Load(path string, known Codecs) (*Checkpoint, error) {
	arrays, err := npyx.ReadNPZ(path)
	if err != nil {
		return nil, err
	}
	c, err := fromArrays(arrays, known)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

func fromArrays(arrays map[string]*npyx.Array, known Codecs) (*Checkpoint, error) {
	var t Type
	var meta Meta
	if m, ok := arrays["meta"]; ok {
		b, err := m.Bytes()
		if err != nil {
			return nil, fmt.Errorf("meta: %w", err)
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			return nil, fmt.Errorf("meta is not valid JSON: %w", err)
		}
		if meta.Epoch < 0 {
			return nil, fmt.Errorf("meta: epoch %d: expected the number of completed training epochs (≥ 0); the file is damaged", meta.Epoch)
		}
		if meta.Format > FormatVersion {
			return nil, fmt.Errorf("format %d is newer than this logz understands (%d)", meta.Format, FormatVersion)
		}
		if t, err = known.Lookup(meta.Type); err != nil {
			return nil, fmt.Errorf("meta: %w", err)
		}
	} else {
		var err error
		if t, err = detect(arrays, known); err != nil {
			return nil, err
		}
		meta = Meta{Type: t.Name, Format: FormatVersion}
	}
	m, err := t.FromArrays(arrays)
	if err != nil {
		return nil, err
	}
	c := &Checkpoint{Model: m, Meta: meta, State: map[string]Array{}, Bytes: map[string][]byte{}}
	for name, a := range arrays {
		k, ok := strings.CutPrefix(name, StatePrefix)
		if !ok {
			continue
		}
		if a.DType == "|u1" {
			b, err := a.Bytes()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			c.Bytes[k] = b
			continue
		}
		c.State[k] = Array{Name: k, Shape: a.Shape, Data: a.Data}
	}
	return c, nil
}

// CopyState copies the state arrays and bytes of c whose keys start with
// prefix into arrays and bytes.
func (c *Checkpoint) CopyState(prefix string, arrays map[string]Array, bytes map[string][]byte) {
	for k, v := range c.State {
		if strings.HasPrefix(k, prefix) {
			arrays[k] = v
		}
	}
	for k, v := range c.Bytes {
		if strings.HasPrefix(k, prefix) {
			bytes[k] = v
		}
	}
}

// WithoutTrainerState returns the model of c with c's meta (its epoch and
// run record kept, so an evaluation still reads the run's data) but none
// of the trainer's state, marked ModelOnly. The model is shared with c,
// not copied.
func (c *Checkpoint) WithoutTrainerState() *Checkpoint {
	meta := c.Meta
	meta.Train, meta.ModelOnly = nil, true
	return &Checkpoint{Model: c.Model, Meta: meta, State: map[string]Array{}, Bytes: map[string][]byte{}}
}

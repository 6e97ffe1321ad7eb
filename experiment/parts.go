package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/internal/atomicfile"
	"gopkg.in/yaml.v3"
)

// A sharded run keeps what each shard computed in part files in
// DIR/parts/, one JSON object each, written atomically:
//
//   - <experiment>.train.json: the training of an experiment — its epoch
//     rows (training and after-epoch estimates) up to the checkpoint in
//     <experiment>/model.npz, and whether training is complete (or failed);
//   - <experiment>.eval-<i>-of-<n>.json: shard i of n of the experiment's
//     final evaluation — for every piece of shareable work of every
//     estimator entry (an AIS, a RAISE, a CSL, an importance sampler), the
//     indices of the units the shard computed and their exact values, and
//     the time the shard spent on each row;
//   - eval-<i>-of-<n>.json: the same for `logz eval --shard`.
//
// Every part carries a Fingerprint of what its values depend on; a merge
// accepts a part only when its fingerprint is the one the merge computes.
// Every part also carries the SHA-256 of its content (see partChecksum), so
// that a number edited by hand, or damaged, is refused instead of merged.

// PartsDir is the folder of a run folder that holds the part files (one
// name with config.ReservedNames, which keeps experiments from taking it).
const PartsDir = config.PartsDir

// partFormat is the version of the part files written and read: 2 since
// parts carry a checksum.
const partFormat = 2

// Fingerprint is what the values in a part depend on: the settings, the
// model evaluated, the seed and the program. Two parts can be merged only
// when their fingerprints are equal.
type Fingerprint struct {
	// Config is the SHA-256 of the experiment's resolved settings (for
	// `logz eval`, of its data, estimator and flag settings).
	Config string `json:"config"`
	// Model is the SHA-256 of the model file evaluated (eval parts only).
	Model string `json:"model,omitempty"`
	// Estimators lists the entries of the evaluation (eval parts only).
	Estimators string `json:"estimators,omitempty"`
	// Seed is the experiment's (or `logz eval`'s) seed.
	Seed uint64 `json:"seed"`
	// Logz is the version of the program that wrote the part.
	Logz string `json:"logz"`
}

// differs names the first field in which f and g differ, with both values,
// or returns "" when they are equal.
func (f Fingerprint) differs(g Fingerprint) string {
	switch {
	case f.Config != g.Config:
		return fmt.Sprintf("settings (config hash %s, now %s)", short(f.Config), short(g.Config))
	case f.Model != g.Model:
		return fmt.Sprintf("model file (hash %s, now %s)", short(f.Model), short(g.Model))
	case f.Estimators != g.Estimators:
		return fmt.Sprintf("estimators (%s, now %s)", f.Estimators, g.Estimators)
	case f.Seed != g.Seed:
		return fmt.Sprintf("seed (%d, now %d)", f.Seed, g.Seed)
	case f.Logz != g.Logz:
		return fmt.Sprintf("logz version (%s, now %s)", f.Logz, g.Logz)
	}
	return ""
}

// short is a hash cut to its first 12 digits, for messages.
func short(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// experimentHash is the SHA-256 of an experiment's resolved settings.
func experimentHash(exp config.Experiment) (string, error) {
	b, err := yaml.Marshal(&exp)
	if err != nil {
		return "", fmt.Errorf("fingerprint of experiment %s: %w", exp.Name, err)
	}
	return hashBytes(b), nil
}

func hashBytes(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// HashFile returns the SHA-256 of a file's content.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// trainPart is an experiment's training in a sharded run.
type trainPart struct {
	Format      int         `json:"format"`
	Kind        string      `json:"kind"` // "train"
	Checksum    string      `json:"checksum,omitempty"`
	Experiment  string      `json:"experiment"`
	Fingerprint Fingerprint `json:"fingerprint"`
	// Epochs is the last epoch whose rows are here and whose model is in
	// <experiment>/model.npz (when Complete); Total the epochs to train.
	Epochs int `json:"epochs"`
	Total  int `json:"total"`
	// Complete: training finished and model.npz holds the final model.
	Complete bool `json:"complete"`
	// Failed is the error that stopped training, if any.
	Failed string       `json:"failed,omitempty"`
	Rows   []report.Row `json:"rows"`
}

// evalPart is one shard's share of a final evaluation.
type evalPart struct {
	Format      int         `json:"format"`
	Kind        string      `json:"kind"` // "eval"
	Checksum    string      `json:"checksum,omitempty"`
	Experiment  string      `json:"experiment"`
	Fingerprint Fingerprint `json:"fingerprint"`
	Shard       int         `json:"shard"`
	Shards      int         `json:"shards"`
	// Seconds is the wall time of the shard's evaluation.
	Seconds float64 `json:"seconds"`
	// Failed is the error that stopped the evaluation in this shard, if
	// any; Entries then hold the work done before it.
	Failed  string      `json:"failed,omitempty"`
	Entries []partEntry `json:"entries"`
}

// partEntry is what a shard computed for one estimator entry.
type partEntry struct {
	Index     int    `json:"index"`
	Estimator string `json:"estimator"`
	// RowSeconds is the time the shard spent on each of the entry's rows,
	// in order (nil when the entry did not finish).
	RowSeconds []float64  `json:"row_seconds"`
	Work       []partWork `json:"work"`
}

// partWork is one piece of shareable work of an entry (its Call-th): its
// N units of Width values each, of which the shard computed Units, with
// their values in Values (unit-major).
type partWork struct {
	Call   int         `json:"call"`
	N      int         `json:"n"`
	Width  int         `json:"width"`
	Units  []int       `json:"units"`
	Values exactFloats `json:"values"`
}

// exactFloats is a list of float64 that reads back bit for bit: finite
// numbers in the shortest form that round-trips (strconv 'g', -1), NaN and
// ±Inf as the strings "NaN", "+Inf" and "-Inf", which JSON has no numbers
// for.
type exactFloats []float64

// MarshalJSON implements json.Marshaler.
func (f exactFloats) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+24*len(f))
	b = append(b, '[')
	for i, x := range f {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b = strconv.AppendQuote(b, strconv.FormatFloat(x, 'g', -1, 64))
		} else {
			b = strconv.AppendFloat(b, x, 'g', -1, 64)
		}
	}
	return append(b, ']'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *exactFloats) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(exactFloats, len(raw))
	for i, r := range raw {
		s := string(r)
		if strings.HasPrefix(s, `"`) {
			if err := json.Unmarshal(r, &s); err != nil {
				return err
			}
			if s != "NaN" && s != "+Inf" && s != "-Inf" {
				return fmt.Errorf("value %d is the string %q; want a number, \"NaN\", \"+Inf\" or \"-Inf\"", i, s)
			}
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("value %d: %q is not a number", i, s)
		}
		out[i] = x
	}
	*f = out
	return nil
}

// Part file names in DIR/parts.
func trainPartName(exp string) string { return exp + ".train.json" }

func evalPartName(exp string, s Shard) string {
	if exp == "" {
		return fmt.Sprintf("eval-%d-of-%d.json", s.Index, s.Count)
	}
	return fmt.Sprintf("%s.eval-%d-of-%d.json", exp, s.Index, s.Count)
}

// part is a trainPart or an evalPart: checksum gives its Checksum field.
type part interface {
	checksum() *string
}

func (p *trainPart) checksum() *string { return &p.Checksum }
func (p *evalPart) checksum() *string  { return &p.Checksum }

// encodePart is the JSON of a part as a part file holds it.
func encodePart(p part) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(p)
	return buf.Bytes(), err
}

// partChecksum is the SHA-256 of the part's content: of its JSON as
// encodePart writes it, without the checksum field. A part read back
// encodes to the same JSON (its floats read back bit for bit), so the
// checksum holds however the file's JSON is laid out, and changes with
// any value in it.
func partChecksum(p part) (string, error) {
	sum := p.checksum()
	kept := *sum
	*sum = ""
	defer func() { *sum = kept }()
	b, err := encodePart(p)
	if err != nil {
		return "", err
	}
	return hashBytes(b), nil
}

// writePart sets the part's checksum and writes it as JSON into path,
// atomically.
func writePart(path string, p part) error {
	sum, err := partChecksum(p)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	*p.checksum() = sum
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		b, err := encodePart(p)
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	})
}

// readPart reads the part at path into p (strictly: unknown fields are an
// error), checking its format, its kind and its checksum.
func readPart(path, kind string, p part) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var head struct {
		Format int    `json:"format"`
		Kind   string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("%s: not a part file (%v); remove it", path, err)
	}
	if head.Format != partFormat {
		return fmt.Errorf("%s: a part of format %d, written by another logz version (this one reads format %d); remove it to compute it again", path, head.Format, partFormat)
	}
	if head.Kind != kind {
		return fmt.Errorf("%s: a part of kind %q, want kind %q; remove it", path, head.Kind, kind)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return fmt.Errorf("%s: corrupt part file (%v); remove it to compute it again", path, err)
	}
	got := *p.checksum()
	if got == "" {
		return fmt.Errorf("%s: a part without a checksum, not written by this logz version; remove it to compute it again", path)
	}
	want, err := partChecksum(p)
	if err != nil {
		return fmt.Errorf("%s: corrupt part file (%v); remove it to compute it again", path, err)
	}
	if got != want {
		return fmt.Errorf("%s: checksum mismatch (the file says %s, its content hashes to %s): the part was edited or damaged after logz wrote it; remove it to compute it again", path, short(got), short(want))
	}
	return nil
}

func readTrainPart(path string) (*trainPart, error) {
	p := &trainPart{}
	if err := readPart(path, "train", p); err != nil {
		return nil, err
	}
	for i := range p.Rows {
		if err := p.Rows[i].Validate(); err != nil {
			return nil, fmt.Errorf("%s: rows[%d]: %w", path, i, err)
		}
		if p.Rows[i].Warnings == nil {
			p.Rows[i].Warnings = []string{}
		}
	}
	return p, nil
}

func readEvalPart(path string) (*evalPart, error) {
	p := &evalPart{}
	if err := readPart(path, "eval", p); err != nil {
		return nil, err
	}
	if p.Shards < 1 || p.Shard < 0 || p.Shard >= p.Shards {
		return nil, fmt.Errorf("%s: shard %d of %d is not a shard; remove it", path, p.Shard, p.Shards)
	}
	for _, e := range p.Entries {
		for _, w := range e.Work {
			if w.N < 0 || w.Width < 0 || len(w.Values) != len(w.Units)*w.Width {
				return nil, fmt.Errorf("%s: entry %d (%s) work %d has %d values for %d units of width %d; remove it", path, e.Index, e.Estimator, w.Call, len(w.Values), len(w.Units), w.Width)
			}
		}
	}
	return p, nil
}

// evalParts lists the eval parts of an experiment ("" for `logz eval`) in
// the parts folder dir, by file name, with their shard numbers read from
// the names (the content is read and checked by the caller).
func evalParts(dir, exp string) ([]string, []Shard, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	prefix := "eval-"
	if exp != "" {
		prefix = exp + ".eval-"
	}
	var names []string
	var shards []Shard
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || e.IsDir() {
			continue
		}
		var s Shard
		if _, err := fmt.Sscanf(rest, "%d-of-%d.json", &s.Index, &s.Count); err != nil || evalPartName(exp, s) != e.Name() {
			continue
		}
		if s.Count < 1 || s.Count > MaxShards || s.Index < 0 || s.Index >= s.Count {
			// Checked before the caller makes room for s.Count parts.
			return nil, nil, fmt.Errorf("%s: not a part logz writes: shard %d of %d (the count must be in [1, %d], the index in [0, count)); remove it",
				filepath.Join(dir, e.Name()), s.Index, s.Count, MaxShards)
		}
		names = append(names, filepath.Join(dir, e.Name()))
		shards = append(shards, s)
	}
	return names, shards, nil
}

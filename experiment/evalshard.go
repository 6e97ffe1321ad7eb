package experiment

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/internal/runlock"
	"github.com/logz-ml/logz/models"
	"gopkg.in/yaml.v3"
)

// An evaluation of one model (`logz eval`) is sharded like a run's final
// evaluation: shard i of n computes its units into DIR/parts/eval-i-of-n.json
// (EvalShard) and the evaluation run with DIR's parts (EvalMerged) gives
// the rows the evaluation run in one process gives.

// Evaluation is one evaluation of a model: what EvalShard and EvalMerged
// run, and what its fingerprint is made of.
type Evaluation struct {
	Family     *family.Family
	Model      models.Model
	ModelFile  string // the .npz the model came from
	Estimators []config.Estimator
	// Env is the evaluation's environment (its splits, base rate, seed).
	Env evalenv.Env
	// Data are the sets the evaluation reads (the splits and the base
	// rate's), part of the fingerprint.
	Data []*data.Set
	// Logz is the version of the program.
	Logz string
}

// fingerprint is the evaluation's fingerprint: the model file's hash, and
// a hash of the examples, the base rate, the split names and every
// estimator's settings.
func (e *Evaluation) fingerprint() (Fingerprint, error) {
	h := sha256.New()
	for _, s := range e.Data {
		fmt.Fprintf(h, "data %d×%d\n", s.N, s.D)
		h.Write(s.X)
	}
	for _, b := range e.Env.BaseRate {
		binary.Write(h, binary.LittleEndian, math.Float64bits(b))
	}
	names := make([]string, len(e.Estimators))
	for i, c := range e.Estimators {
		names[i] = c.Name
		y, err := yaml.Marshal(c.Settings)
		if err != nil {
			return Fingerprint{}, fmt.Errorf("fingerprint of %s: %w", c.Name, err)
		}
		fmt.Fprintf(h, "estimator %s\n%s", c.Name, y)
	}
	for _, s := range e.Env.Splits {
		fmt.Fprintf(h, "split %s %d\n", s.Name, s.Data.Len())
	}
	fmt.Fprintf(h, "experiment %s stage %s epoch %d\n", e.Env.Experiment, e.Env.Stage, e.Env.Epoch)
	if e.Env.Positions != nil {
		fmt.Fprintf(h, "positions %v\n", e.Env.Positions)
	}
	model, err := HashFile(e.ModelFile)
	if err != nil {
		return Fingerprint{}, err
	}
	return Fingerprint{Config: hex.EncodeToString(h.Sum(nil)), Model: model, Estimators: strings.Join(names, ","), Seed: e.Env.Seed, Logz: e.Logz}, nil
}

// CheckPartsFolder refuses, as the --parts folder of logz eval, a folder
// that holds a logz run: the evaluation's parts would go into the run's
// parts folder, and logz status and logz merge would take the run for a
// sharded run not started. The parts need a folder of their own.
func CheckPartsFolder(dir string) error {
	if HoldsRun(dir) {
		return folderError("--parts %s holds a logz run (%s or %s); the parts of logz eval --shard need a folder of their own: choose another --parts", dir, config.ResolvedFile, config.ResultsFile)
	}
	return nil
}

// EvalShard computes shard s of the evaluation into dir/parts, unless a
// finished part with the same fingerprint is there (then it says so on
// stderr and does nothing).
func EvalShard(dir string, s Shard, e *Evaluation, stderr io.Writer) error {
	fp, err := e.fingerprint()
	if err != nil {
		return err
	}
	if err := CheckPartsFolder(dir); err != nil {
		return err
	}
	// Shards of one evaluation share the folder; a run's writer keeps them out.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lock, err := runlock.Acquire(dir, runlock.Shared)
	if err != nil {
		return err
	}
	defer lock.Release()
	path := filepath.Join(dir, PartsDir, evalPartName("", s))
	switch p, err := readEvalPart(path); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case p.Fingerprint.differs(fp) != "":
		return fmt.Errorf("%s was made with another %s; remove it (or use another --parts folder)", path, p.Fingerprint.differs(fp))
	case p.Failed == "":
		fmt.Fprintf(stderr, "logz eval: shard %s done before (%s); kept\n", s, path)
		return nil
	}
	ev := e.Env
	if ev.Progress != nil {
		ev.Progress = shardProgress(stderr, s)
	}
	p, runErr := evalShare(ev, s, fp, e.Family, e.Model, e.Estimators)
	return errors.Join(runErr, writePart(path, &p))
}

// EvalMerged runs the evaluation with the units' values from the parts in
// dir/parts (every shard of one count, each once, with this evaluation's
// fingerprint) and returns its rows: those the evaluation gives in one
// process, each row's seconds the longest a shard spent on it.
func EvalMerged(dir string, e *Evaluation) ([]report.Row, error) {
	fp, err := e.fingerprint()
	if err != nil {
		return nil, err
	}
	if err := CheckPartsFolder(dir); err != nil {
		return nil, err
	}
	pdir := filepath.Join(dir, PartsDir)
	m, problems := collectParts(pdir, "", fp, "the evaluation in "+pdir)
	if len(problems) > 0 {
		return nil, &MergeError{Dir: dir, Problems: problems, Hint: "run the missing shards with the same flags and --shard i/n --parts " + dir}
	}
	ev := e.Env
	ev.Sharding, ev.Progress = m, nil
	rows, err := ev.Run(e.Family, e.Model, e.Estimators)
	if err != nil {
		return rows, err
	}
	return rows, m.unused()
}

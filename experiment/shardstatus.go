package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/logz-ml/logz/config"
)

// ShardedState is what a sharded run folder holds (ReadShardedState).
type ShardedState struct {
	Dir    string
	Config *config.File
	// Merged: results.json is there (written by a merge).
	Merged      bool
	Experiments []ExperimentState
}

// ExperimentState is the state of one experiment of a sharded run.
type ExperimentState struct {
	Name string
	// Index is the experiment's position in the config: training shard
	// Index mod (training shards) trains it.
	Index int
	// Training: Started (a training part exists), Epochs of Total done,
	// Trained (complete), Failed (its error).
	Started, Trained bool
	Epochs, Total    int
	Failed           string
	// MissingModel, if set, is the model file that the training part
	// says was written but is gone (deleted after training); Trained is
	// then false: the experiment must be trained again.
	MissingModel string
	// Shards is the shard count of the final evaluation: the one asked
	// for, else that of the parts there (0: none yet).
	Shards int
	// Done are the shards whose part is finished and current, Missing
	// those without one, FailedShards those whose part records an error.
	Done, Missing, FailedShards []int
	// Problems are parts that cannot be merged (made with another config,
	// model or program; of another shard count; unreadable), each naming
	// the file and what to do.
	Problems []string
}

// Ready reports whether the experiment can be merged.
func (e *ExperimentState) Ready() bool {
	return e.Failed != "" || (e.Trained && e.Shards > 0 && len(e.Done) == e.Shards && len(e.Problems) == 0)
}

// ReadShardedState reads the parts of the sharded run in dir and says,
// per experiment, what is done and what is missing. shards is the number
// of evaluation shards expected (0: inferred from the parts); logz is the
// program version the fingerprints must name.
func ReadShardedState(dir string, shards int, logz string) (*ShardedState, error) {
	f, err := readShardedConfig(dir)
	if err != nil {
		return nil, err
	}
	st := &ShardedState{Dir: dir, Config: f}
	if _, err := os.Stat(filepath.Join(dir, config.ResultsFile)); err == nil {
		st.Merged = true
	}
	pdir := filepath.Join(dir, PartsDir)
	for i, exp := range f.Experiments {
		e := ExperimentState{Name: exp.Name, Index: i, Shards: shards}
		tpath := filepath.Join(pdir, trainPartName(exp.Name))
		tp, err := readTrainPart(tpath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			e.Problems = append(e.Problems, err.Error())
		default:
			e.Started, e.Trained, e.Epochs, e.Total, e.Failed = true, tp.Complete, tp.Epochs, tp.Total, tp.Failed
			if fp, err := trainFingerprint(exp, logz); err == nil && tp.Fingerprint.differs(fp) != "" {
				e.Problems = append(e.Problems, fmt.Sprintf("%s was made with another %s; remove it and %s/%s to train %s again", tpath, tp.Fingerprint.differs(fp), exp.Name, modelFile, exp.Name))
				e.Trained = false
			}
			if e.Trained && modelMissing(dir, exp.Name) != nil {
				e.Trained, e.MissingModel = false, filepath.Join(dir, exp.Name, modelFile)
			}
		}
		files, found, err := evalParts(pdir, exp.Name)
		if err != nil {
			return nil, err
		}
		if e.Shards == 0 && len(found) > 0 {
			e.Shards = found[0].Count
		}
		var fp Fingerprint
		if e.Trained {
			if fp, err = evalFingerprint(exp, dir, logz); err != nil {
				e.Problems = append(e.Problems, err.Error())
			}
		}
		done := map[int]bool{}
		for k, file := range files {
			s := found[k]
			if s.Count != e.Shards {
				e.Problems = append(e.Problems, fmt.Sprintf("%s is a part of a %d-shard evaluation, not of %d shards; remove it", file, s.Count, e.Shards))
				continue
			}
			p, err := readEvalPart(file)
			switch {
			case err != nil:
				e.Problems = append(e.Problems, err.Error())
			case e.Trained && p.Fingerprint.differs(fp) != "":
				e.Problems = append(e.Problems, fmt.Sprintf("%s was made with another %s; remove it and run shard %s again", file, p.Fingerprint.differs(fp), s))
			case p.Failed != "":
				e.FailedShards = append(e.FailedShards, s.Index)
			default:
				e.Done = append(e.Done, s.Index)
				done[s.Index] = true
			}
		}
		slices.Sort(e.Done)
		slices.Sort(e.FailedShards)
		for k := range e.Shards {
			if !done[k] {
				e.Missing = append(e.Missing, k)
			}
		}
		st.Experiments = append(st.Experiments, e)
	}
	return st, nil
}

// modelMissing is the error for a trained experiment of the sharded run in
// dir whose model.npz is gone (deleted after training): its evaluation
// shards cannot run until it is trained again, which a training shard
// does (RunShard), or nil when the model is there.
func modelMissing(dir, exp string) error {
	path := filepath.Join(dir, exp, modelFile)
	_, err := os.Stat(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("%s is missing, though %s says %s's training finished; train %s again (logz status %s prints the command)",
		path, filepath.Join(dir, PartsDir, trainPartName(exp)), exp, exp, dir)
}

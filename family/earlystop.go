package family

// Stopping is embedded (inline) in every family's train: settings: it adds
// the key early_stop, validation early stopping and model selection, which
// the runner applies alike to every family (whatever its trainer does in
// an epoch). Its method makes the train settings a [Stopper].
type Stopping struct {
	// EarlyStop stops training when the validation log-likelihood has not
	// improved for patience evaluations, and evaluates the best model.
	EarlyStop EarlyStop `yaml:"early_stop,omitempty" want:"a mapping {patience: N, monitor: NAME}"`
}

// Stopper is implemented by train settings that embed [Stopping].
type Stopper interface {
	EarlyStopping() *EarlyStop
}

// EarlyStopping returns the early_stop settings.
func (s *Stopping) EarlyStopping() *EarlyStop { return &s.EarlyStop }

// EarlyStop configures validation early stopping and model selection: after
// each after-epoch evaluation the monitored estimator's mean
// log-likelihood on the valid split is compared with the best so far;
// training stops after Patience evaluations without a strictly better one,
// and the final evaluations, samples and pictures use the model of the
// best epoch (kept as best.npz beside model.npz).
type EarlyStop struct {
	// Patience is the number of after-epoch evaluations without a better
	// validation estimate after which training stops; 0 = off (every epoch
	// is trained and the last model evaluated).
	Patience int `yaml:"patience" want:"a non-negative integer (0 = off)"`
	// Monitor names the evaluate.every_epoch estimator whose mean
	// log-likelihood on the valid split is compared (its first entry of
	// that name); "" = the first entry of evaluate.every_epoch.
	Monitor string `yaml:"monitor,omitempty" want:"the name of an evaluate.every_epoch estimator"`
}

// On reports whether early stopping is configured.
func (e *EarlyStop) On() bool { return e != nil && e.Patience > 0 }

// EarlyStopOf returns the early_stop settings of train settings t, nil
// when t has none or they are off.
func EarlyStopOf(t Settings) *EarlyStop {
	if s, ok := t.(Stopper); ok && s.EarlyStopping().On() {
		return s.EarlyStopping()
	}
	return nil
}

// StopFrom is implemented by train settings whose runs train other models
// before the one the config describes (a dbn's lower layers, a dbm's
// pretraining RBMs): early stopping watches only the epochs from
// StopFrom(total) on, total being the run's epochs, so that the model it
// selects is of the kind the config asks for.
type StopFrom interface {
	StopFrom(total int) int
}

// EarlyStopFrom is the first epoch early stopping watches in a run of
// total epochs with train settings t (1 unless t is a StopFrom).
func EarlyStopFrom(t Settings, total int) int {
	if s, ok := t.(StopFrom); ok {
		return max(1, s.StopFrom(total))
	}
	return 1
}

// CheckStopping reports the early_stop settings' own problems; every
// family's train Check calls it. What they need of the rest of the
// experiment (a validation split, an after-epoch estimator) is checked by
// package config.
func (s *Stopping) CheckStopping(p Problems) {
	e := &s.EarlyStop
	p.Check("early_stop.patience", e.Patience >= 0, "a non-negative integer (0 = off)", e.Patience)
	CheckMax(p, "early_stop.patience", e.Patience, MaxEpochs, "family.MaxEpochs")
	if e.Monitor != "" && e.Patience == 0 {
		p.Crossf("early_stop.monitor", "early_stop.monitor", "monitor %q does nothing while patience is 0 (early stopping off); set patience or drop monitor", e.Monitor)
	}
}

package kit

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

type settingsA struct{}

func (*settingsA) Check(family.Problems) {}

type settingsB struct{}

func (*settingsB) Check(family.Problems) {}

// onlyModels builds nothing; builder also trains nothing.
type onlyModels struct{}

func (onlyModels) NewModel(family.Settings, int) (models.Model, error) { return nil, nil }

type builder struct{ onlyModels }

func (builder) NewTrainer(family.TrainerArgs) (family.Trainer, error) { return nil, nil }

func run(*evalenv.Env, models.Model, *settingsA, evalenv.Job) ([]report.Row, error) {
	return nil, nil
}

// TestRegisterChecksTheSeams: registration refuses a Plugin that cannot
// train and an estimator whose Impl does not take the settings its New
// makes, naming the family and the estimator; a family whose seams agree
// registers. Mutation checked: dropping the Takes check in
// family.Register lets the mismatched estimator register.
func TestRegisterChecksTheSeams(t *testing.T) {
	codec := func(name string) models.Type { return models.Type{Name: name} }
	fam := func(name string, p family.Plugin, e *family.Estimator) *family.Family {
		return &family.Family{Name: name, Doc: "a test family", Codec: codec(name),
			Model: func() family.Settings { return &settingsA{} }, Train: func() family.Settings { return &settingsA{} },
			EveryEpoch: func() []family.Configured { return nil }, Final: func() []family.Configured { return nil },
			Plugin: p, Estimators: []*family.Estimator{e}}
	}
	good := func() *family.Estimator {
		return estim.Define(estim.Def[models.Model, settingsA]{Name: "est", Doc: "a test estimator", Run: run})
	}
	mismatched := good()
	mismatched.New = func() family.Settings { return &settingsB{} }
	for _, c := range []struct {
		f    *family.Family
		want string // "" registers
	}{
		{fam("seams-mismatched", builder{}, mismatched), "family seams-mismatched: estimator est: its Impl"},
		{fam("seams-good", builder{}, good()), ""},
	} {
		got := func() (msg string) {
			defer func() {
				if r := recover(); r != nil {
					msg, _ = r.(string)
				}
			}()
			Register(c.f)
			return ""
		}()
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: registering panicked with %q, want %q", c.f.Name, got, c.want)
		}
	}
	if _, err := family.Lookup("seams-good"); err != nil {
		t.Error(err)
	}
}

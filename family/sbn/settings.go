// Package sbn registers the model families "sbn" and "arsbn": sigmoid
// belief nets, plain and autoregressive (package github.com/logz-ml/logz/sbn),
// trained by doubly stochastic SG-MCMC with a Gibbs or an adaptive
// importance sampler (Du, Zhu & Zhang 2015), with exact, IS, AIS, BDMC and
// completion estimators.
package sbn

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// Model is the model: section of an sbn or arsbn.
type Model struct {
	// Layers are the latent layer sizes n_1 … n_L, bottom up.
	Layers []int `yaml:"layers" want:"a list of positive integers (latent layer sizes, bottom up)"`
	// InitWeightStd is σ of the initial weights W ~ N(0, σ²) (and of the
	// recognition network's).
	InitWeightStd float64 `yaml:"init_weight_std" want:"a non-negative number"`
	// InitVisibleBias is "base-rate" (b_0 = the training data's smoothed
	// log-odds) or "zero".
	InitVisibleBias string `yaml:"init_visible_bias" want:"base-rate or zero"`
}

// Check reports bad model settings.
func (m *Model) Check(p family.Problems) {
	p.Check("layers", len(m.Layers) >= 1, "at least one latent layer", m.Layers)
	family.CheckLayerCount(p, "layers", m.Layers)
	for i, n := range m.Layers {
		p.Check(fmt.Sprintf("layers[%d]", i), n >= 1 && n <= models.MaxUnits, fmt.Sprintf("an integer in [1, %d] (models.MaxUnits)", models.MaxUnits), n)
	}
	p.Check("init_weight_std", m.InitWeightStd >= 0 && !math.IsInf(m.InitWeightStd, 0) && !math.IsNaN(m.InitWeightStd), "a non-negative number", m.InitWeightStd)
	p.Enum("init_visible_bias", m.InitVisibleBias, []string{"base-rate", "zero"})
}

// DefaultModel is one latent layer of 200 units, N(0, 0.01²) weights and
// base-rate visible biases.
func DefaultModel() Model {
	return Model{Layers: []int{200}, InitWeightStd: 0.01, InitVisibleBias: "base-rate"}
}

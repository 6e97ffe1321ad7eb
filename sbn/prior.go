package sbn

import (
	"fmt"
	"math"
)

// Prior is the prior p_0(θ) of DSGHMC on each generative parameter
// (weights, autoregressive weights and biases alike, as the official
// DSGHMC code; never the recognition network), independent across
// parameters:
//
//	"student-t": p_0(θ) = Γ((ν+1)/2) / (Γ(ν/2) √(νπ) σ) · (1 + θ²/(νσ²))^{−(ν+1)/2}
//	             −∂ log p_0/∂θ = (ν+1)θ / (νσ² + θ²)      (μ = 0; the paper: σ = 0.09, ν = 2.2)
//	"gaussian":  p_0(θ) = N(θ; 0, σ²),  −∂ log p_0/∂θ = θ/σ²
//	"none":      flat, gradient 0 (maximum likelihood)
type Prior struct {
	Kind  string
	Sigma float64
	Nu    float64
}

// Check reports an unknown kind or a non-positive scale.
func (p Prior) Check() error {
	switch p.Kind {
	case "none":
		return nil
	case "student-t":
		if !(p.Nu > 0) || math.IsInf(p.Nu, 0) {
			return fmt.Errorf("prior student-t: ν = %v must be a positive number", p.Nu)
		}
	case "gaussian":
	default:
		return fmt.Errorf("prior %q: expected student-t, gaussian or none", p.Kind)
	}
	if !(p.Sigma > 0) || math.IsInf(p.Sigma, 0) {
		return fmt.Errorf("prior %s: σ = %v must be a positive number", p.Kind, p.Sigma)
	}
	return nil
}

// LogDensity is log p_0(θ) of one parameter (0 for "none").
func (p Prior) LogDensity(theta float64) float64 {
	switch p.Kind {
	case "student-t":
		nu, s := p.Nu, p.Sigma
		lg1, _ := math.Lgamma((nu + 1) / 2)
		lg2, _ := math.Lgamma(nu / 2)
		return lg1 - lg2 - 0.5*math.Log(nu*math.Pi) - math.Log(s) - (nu+1)/2*math.Log1p(theta*theta/(nu*s*s))
	case "gaussian":
		z := theta / p.Sigma
		return -0.5*z*z - math.Log(p.Sigma) - 0.5*math.Log(2*math.Pi)
	}
	return 0
}

// AddGradU adds −∂ log p_0/∂θ_i (the prior's part of the potential energy
// U = −log p_0(θ) − Σ_n log p(x_n | θ)) to g[i] for every θ_i.
func (p Prior) AddGradU(theta, g []float64) {
	switch p.Kind {
	case "student-t":
		nu1, nus2 := p.Nu+1, p.Nu*p.Sigma*p.Sigma
		for i, x := range theta {
			g[i] += nu1 * x / (nus2 + x*x)
		}
	case "gaussian":
		inv := 1 / (p.Sigma * p.Sigma)
		for i, x := range theta {
			g[i] += x * inv
		}
	}
}

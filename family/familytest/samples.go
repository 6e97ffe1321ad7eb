package familytest

import "github.com/logz-ml/logz/internal/sampletest"

// The sampler checks live in internal/sampletest, beside the samplers'
// numerics in eval and sbn that they test; these names keep the family
// tests that use them (the conformance test, the sbn completion test)
// reading as before.

// Rows is sampletest.Rows: data.Examples over fixed rows.
type Rows = sampletest.Rows

// CheckSampler is sampletest.CheckSampler.
var CheckSampler = sampletest.CheckSampler

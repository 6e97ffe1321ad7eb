package experiment

import (
	"fmt"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
	"strings"
)

// epochSettings is a trainer that writes its own settings on the epoch
// line ("k=1 lr=0.05 mom=0.50" for an RBM's contrastive divergence,
// "sghmc/adaptive-is lr=0.01 friction=0.10 …" for a sigmoid belief net),
// with the names of its train: keys.
type epochSettings interface {
	EpochSettings(sum models.EpochSummary) string
}

// settingsOf is the settings part of an epoch line: the trainer's own
// (epochSettings), else those of the summary that are set (k, the
// learning rate, the momentum; none: "").
func settingsOf(tr family.Trainer, sum models.EpochSummary) string {
	if s, ok := tr.(epochSettings); ok {
		return s.EpochSettings(sum)
	}
	var s []string
	if sum.K != 0 {
		s = append(s, fmt.Sprintf("k=%d", sum.K))
	}
	if sum.LearningRate != 0 {
		s = append(s, fmt.Sprintf("lr=%.4g", sum.LearningRate))
	}
	if sum.Momentum != 0 {
		s = append(s, fmt.Sprintf("mom=%.2f", sum.Momentum))
	}
	return strings.Join(s, " ")
}

// epochLine is the start of the line printed after an epoch: "a: epoch
// 3/10 layer 2  k=1 lr=0.05 mom=0.50" (layer is "" or " layer L").
func epochLine(exp string, sum models.EpochSummary, epochs int, layer, settings string) string {
	line := fmt.Sprintf("%s: epoch %d/%d%s", exp, sum.Epoch, epochs, layer)
	if settings != "" {
		line += "  " + settings
	}
	return line
}

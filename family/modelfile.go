package family

import (
	"errors"
	"fmt"
	"os"

	"github.com/logz-ml/logz/models"
)

// LoadModelFile loads the checkpoint a setting names (ais-ratio's to:, a
// dbn's bottom_from), saying plainly when the file does not exist: "PATH
// does not exist" followed by missingHint, if any (e.g. " (train the model
// it names first)").
func LoadModelFile(path, missingHint string) (*models.Checkpoint, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist%s", path, missingHint)
		}
		return nil, err
	}
	return models.Load(path, Codecs())
}

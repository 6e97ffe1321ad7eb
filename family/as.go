package family

import (
	"fmt"

	"github.com/logz-ml/logz/models"
)

// As returns m as the model type T a plug-in works on, or an error naming
// both ("the model is a dbm (*models.DBM), not a *models.RBM") where a
// type assertion would panic: for the Plugin's methods, which the runner
// hands a models.Model. Estimators get their model typed: family/kit/estim.Define
// checks it here, once for all of them.
func As[T models.Model](m models.Model) (T, error) {
	t, ok := m.(T)
	if !ok {
		name := "nil"
		if m != nil {
			name = m.TypeName()
		}
		return t, fmt.Errorf("the model is a %s (%T), not a %T", name, m, t)
	}
	return t, nil
}

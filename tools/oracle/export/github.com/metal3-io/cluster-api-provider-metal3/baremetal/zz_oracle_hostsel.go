// Exported entry point into CAPM3's host selection with the reason it reports, for Ironhook's
// differential oracle (area hostsel). It calls upstream's function unchanged.
package baremetal

import (
	"context"

	bmov1alpha1 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
)

// OracleChooseHostWithReason is MachineManager.chooseHost: the host upstream would associate
// with the manager's Metal3Machine (nil when none is eligible) and the condition reason it gives.
func OracleChooseHostWithReason(ctx context.Context, m *MachineManager) (*bmov1alpha1.BareMetalHost, string, error) {
	host, _, reason, err := m.chooseHost(ctx)
	return host, reason, err
}

// Exported entry points into CAPM3's unexported rendering and host selection, for Ironhook's
// differential oracle. Each one calls upstream's function unchanged.
package baremetal

import (
	"context"

	bmov1alpha1 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
	infrav1 "github.com/metal3-io/cluster-api-provider-metal3/api/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// OracleRenderNetworkData is renderNetworkData.
func OracleRenderNetworkData(m3dt *infrav1.Metal3DataTemplate, m3m *infrav1.Metal3Machine,
	machine *clusterv1.Machine, bmh *bmov1alpha1.BareMetalHost, poolAddresses map[string]AddressFromPool,
) ([]byte, error) {
	return renderNetworkData(m3dt, m3m, machine, bmh, poolAddresses)
}

// OracleRenderMetaData is renderMetaData.
func OracleRenderMetaData(m3d *infrav1.Metal3Data, m3dt *infrav1.Metal3DataTemplate, m3m *infrav1.Metal3Machine,
	machine *clusterv1.Machine, bmh *bmov1alpha1.BareMetalHost, poolAddresses map[string]AddressFromPool,
) ([]byte, error) {
	return renderMetaData(m3d, m3dt, m3m, machine, bmh, poolAddresses)
}

// OracleReferencedPools is getReferencedPools.
func OracleReferencedPools(m3dt infrav1.Metal3DataTemplate, m3m *infrav1.Metal3Machine,
	machine *clusterv1.Machine, bmh *bmov1alpha1.BareMetalHost,
) (map[string]infrav1.IPPoolReference, error) {
	return getReferencedPools(m3dt, m3m, machine, bmh)
}

// OracleChooseHost is MachineManager.chooseHost: the host upstream would associate with the
// manager's Metal3Machine (nil when none is eligible).
func OracleChooseHost(ctx context.Context, m *MachineManager) (*bmov1alpha1.BareMetalHost, error) {
	host, _, _, err := m.chooseHost(ctx)
	return host, err
}

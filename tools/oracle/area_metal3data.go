package main

import (
	"encoding/json"
	"fmt"
	"sort"

	bmov1alpha1 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
	infrav1 "github.com/metal3-io/cluster-api-provider-metal3/api/v1beta2"
	"github.com/metal3-io/cluster-api-provider-metal3/baremetal"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// What the IPClaim of one pool has got: an address (the IPAddress's fields), or the pool's error.
type metal3DataPool struct {
	Address    string   `json:"address"`
	Prefix     int32    `json:"prefix"`
	Gateway    string   `json:"gateway"`
	DNSServers []string `json:"dnsServers"`
	Error      string   `json:"error"`
}

type metal3DataCase struct {
	Template      infrav1.Metal3DataTemplate `json:"template"`
	Data          infrav1.Metal3Data         `json:"data"`
	Metal3Machine infrav1.Metal3Machine      `json:"metal3Machine"`
	Machine       clusterv1.Machine          `json:"machine"`
	Host          bmov1alpha1.BareMetalHost  `json:"host"`
	// By pool name; a referenced pool that is absent has not allocated yet.
	Pools map[string]metal3DataPool `json:"pools"`
}

type metal3DataResult struct {
	// By name: the apiGroup and kind upstream claims from (empty when collecting them failed).
	Pools map[string]string `json:"pools"`
	// "rendered", "waiting" (a referenced pool has no address yet) or "error".
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
	// The Secrets created, by data key (metaData, networkData), as text.
	Secrets map[string]string `json:"secrets"`
}

// addresses is getAddressesFromPool's answer once the claims exist: an allocation error wins
// over a pool that has not answered yet (upstream returns at the first error and only requeues
// for missing addresses after the loop).
func addresses(c *metal3DataCase, refs map[string]infrav1.IPPoolReference) (map[string]baremetal.AddressFromPool, bool, error) {
	names := make([]string, 0, len(refs))
	for name := range refs {
		names = append(names, name)
	}
	sort.Strings(names)
	found := map[string]baremetal.AddressFromPool{}
	waiting := false
	for _, name := range names {
		pool, ok := c.Pools[name]
		if !ok {
			waiting = true
			continue
		}
		if pool.Error != "" {
			return nil, false, fmt.Errorf("IP Allocation for %v failed : %v", name, pool.Error)
		}
		found[name] = baremetal.OracleAddressFromPool(pool.Address, pool.Prefix, pool.Gateway, pool.DNSServers)
	}
	return found, waiting, nil
}

// metal3data: DataManager.createSecrets for a Metal3Data whose Secrets do not exist yet, from
// the pool collection on: getReferencedPools, the addresses of the claims, then renderMetaData
// (its Secret is created first) and renderNetworkData.
func init() {
	register("metal3data", func(input json.RawMessage) (any, error) {
		var c metal3DataCase
		if err := json.Unmarshal(input, &c); err != nil {
			return nil, err
		}
		result := metal3DataResult{Pools: map[string]string{}, Secrets: map[string]string{}}
		refs, err := baremetal.OracleReferencedPools(c.Template, &c.Metal3Machine, &c.Machine, &c.Host)
		if err != nil {
			result.Outcome, result.Error = "error", err.Error()
			return result, nil
		}
		for name, ref := range refs {
			result.Pools[name] = ref.Kind + "." + ref.APIGroup
		}
		found, waiting, err := addresses(&c, refs)
		if err != nil {
			result.Outcome, result.Error = "error", err.Error()
			return result, nil
		}
		if waiting {
			result.Outcome = "waiting"
			return result, nil
		}
		if c.Template.Spec.MetaData != nil {
			text, err := baremetal.OracleRenderMetaData(&c.Data, &c.Template, &c.Metal3Machine, &c.Machine, &c.Host, found)
			if err != nil {
				result.Outcome, result.Error = "error", err.Error()
				return result, nil
			}
			result.Secrets["metaData"] = string(text)
		}
		if c.Template.Spec.NetworkData != nil {
			text, err := baremetal.OracleRenderNetworkData(&c.Template, &c.Metal3Machine, &c.Machine, &c.Host, found)
			if err != nil {
				result.Outcome, result.Error = "error", err.Error()
				return result, nil
			}
			result.Secrets["networkData"] = string(text)
		}
		result.Outcome = "rendered"
		return result, nil
	})
}

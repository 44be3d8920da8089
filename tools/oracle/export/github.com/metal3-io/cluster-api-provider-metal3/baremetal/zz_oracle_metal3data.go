// A constructor for AddressFromPool (its DNS servers field is unexported), so that the oracle
// can hand upstream's renderers the addresses an IPAddress would give.
package baremetal

import (
	ipamv1 "github.com/metal3-io/ip-address-manager/api/v1alpha1"
)

// OracleAddressFromPool is the AddressFromPool newAddressFromIPAMv1 builds from an IPAddress
// with these fields.
func OracleAddressFromPool(address string, prefix int32, gateway string, dnsServers []string) AddressFromPool {
	dns := make([]ipamv1.IPAddressStr, 0, len(dnsServers))
	for _, server := range dnsServers {
		dns = append(dns, ipamv1.IPAddressStr(server))
	}
	if len(dnsServers) == 0 {
		dns = nil
	}
	return AddressFromPool{
		Address:    ipamv1.IPAddressStr(address),
		Prefix:     &prefix,
		Gateway:    ipamv1.IPAddressStr(gateway),
		dnsServers: dns,
	}
}

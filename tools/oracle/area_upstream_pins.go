package main

// The upstream packages every area builds on, imported here so that tools/oracle/go.mod pins all
// of them whichever areas exist.
import (
	_ "github.com/metal3-io/cluster-api-provider-metal3/baremetal"
	_ "github.com/metal3-io/ip-address-manager/ipam"
)

package main

import (
	"encoding/json"

	"github.com/metal3-io/baremetal-operator/pkg/hardwareutils/bmc"
)

type bmcCase struct {
	Address                        string `json:"address"`
	DisableCertificateVerification bool   `json:"disableCertificateVerification"`
}

// bmc: what BMO's hardwareutils makes of a BMC address.
func init() {
	register("bmc", func(input json.RawMessage) (any, error) {
		var c bmcCase
		if err := json.Unmarshal(input, &c); err != nil {
			return nil, err
		}
		details, err := bmc.NewAccessDetails(c.Address, c.DisableCertificateVerification)
		if err != nil {
			return nil, err
		}
		return map[string]any{
			"type":       details.Type(),
			"needsMAC":   details.NeedsMAC(),
			"driver":     details.Driver(),
			"driverInfo": details.DriverInfo(bmc.Credentials{Username: "u", Password: "p"}),
		}, nil
	})
}

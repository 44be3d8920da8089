package main

import (
	"encoding/json"

	"github.com/metal3-io/baremetal-operator/pkg/hardwareutils/bmc"
)

type bmcCase struct {
	Address                        string `json:"address"`
	DisableCertificateVerification bool   `json:"disableCertificateVerification"`
}

// The fixed fake credentials every bmc case's DriverInfo is built with.
var bmcFakeCredentials = bmc.Credentials{Username: "oracle-user", Password: "oracle-password"}

// bmc: everything BMO's hardwareutils makes of a BMC address: NewAccessDetails' error, or every
// AccessDetails fact (type, driver, Ironic interfaces, capabilities, the DriverInfo for fixed
// fake credentials, and BuildBIOSSettings' answer for no firmware config and for an empty one).
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
		return bmcFacts(details), nil
	})
}

func bmcFacts(details bmc.AccessDetails) map[string]any {
	noSettings, noSettingsErr := details.BuildBIOSSettings(nil)
	_, emptyConfigErr := details.BuildBIOSSettings(&bmc.FirmwareConfig{})
	return map[string]any{
		"type":                            details.Type(),
		"driver":                          details.Driver(),
		"needsMAC":                        details.NeedsMAC(),
		"driverInfo":                      details.DriverInfo(bmcFakeCredentials),
		"biosInterface":                   details.BIOSInterface(),
		"bootInterface":                   details.BootInterface(),
		"firmwareInterface":               details.FirmwareInterface(),
		"managementInterface":             details.ManagementInterface(),
		"powerInterface":                  details.PowerInterface(),
		"raidInterface":                   details.RAIDInterface(),
		"vendorInterface":                 details.VendorInterface(),
		"supportsSecureBoot":              details.SupportsSecureBoot(),
		"supportsISOPreprovisioningImage": details.SupportsISOPreprovisioningImage(),
		"requiresProvisioningNetwork":     details.RequiresProvisioningNetwork(),
		"biosSettingsWithoutConfig":       map[string]any{"settings": noSettings, "error": bmcErrorText(noSettingsErr)},
		"biosSettingsError":               bmcErrorText(emptyConfigErr),
	}
}

func bmcErrorText(err error) any {
	if err == nil {
		return nil
	}
	return err.Error()
}

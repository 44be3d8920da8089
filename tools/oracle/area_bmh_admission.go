package main

import (
	"encoding/json"

	metal3api "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
	"github.com/metal3-io/baremetal-operator/oracleexport"
)

type admissionCase struct {
	Old *metal3api.BareMetalHost `json:"old,omitempty"`
	New *metal3api.BareMetalHost `json:"new"`
}

// bmh-admission: BMO's validating webhook on a BareMetalHost create (no old) or update.
func init() {
	register("bmh-admission", func(input json.RawMessage) (any, error) {
		var c admissionCase
		if err := json.Unmarshal(input, &c); err != nil {
			return nil, err
		}
		if c.Old == nil {
			return "allowed", oracleexport.ValidateHostCreate(c.New)
		}
		return "allowed", oracleexport.ValidateHostUpdate(c.Old, c.New)
	})
}

package main

import (
	"encoding/json"

	crds "github.com/metal3-io/baremetal-operator/config/base/crds/bases"
)

// bmh-admission-crd: BMO's BareMetalHost CRD (YAML) for any input, so that the test installs
// exactly the schema of the pinned release next to the webhook that answers bmh-admission.
func init() {
	register("bmh-admission-crd", func(json.RawMessage) (any, error) {
		return crds.BareMetalHostCRD, nil
	})
}

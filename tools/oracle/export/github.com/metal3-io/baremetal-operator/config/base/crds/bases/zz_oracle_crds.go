// Package bases embeds BMO's generated CRDs for Ironhook's differential oracle: the
// bmh-admission area installs upstream's own BareMetalHost schema into a test API server, so
// upstream's verdict is its schema and its webhook together, as in a real cluster.
package bases

import _ "embed"

// BareMetalHostCRD is BMO's CustomResourceDefinition for BareMetalHost, as released.
//
//go:embed metal3.io_baremetalhosts.yaml
var BareMetalHostCRD string

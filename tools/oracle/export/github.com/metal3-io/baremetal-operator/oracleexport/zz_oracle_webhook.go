// Package oracleexport reaches BMO's internal admission webhooks for Ironhook's differential
// oracle.
package oracleexport

import (
	"context"

	metal3api "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
	webhooks "github.com/metal3-io/baremetal-operator/internal/webhooks/metal3.io/v1alpha1"
)

// ValidateHostCreate is BMO's validating webhook answering a BareMetalHost create.
func ValidateHostCreate(host *metal3api.BareMetalHost) error {
	_, err := (&webhooks.BareMetalHost{}).ValidateCreate(context.Background(), host)
	return err
}

// ValidateHostUpdate is BMO's validating webhook answering a BareMetalHost update.
func ValidateHostUpdate(oldHost, newHost *metal3api.BareMetalHost) error {
	_, err := (&webhooks.BareMetalHost{}).ValidateUpdate(context.Background(), oldHost, newHost)
	return err
}

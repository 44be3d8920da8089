//go:build tools

// Package tools records the main package this tools module builds; it is never compiled
// into anything (build tag "tools").
package tools

import (
	_ "sigs.k8s.io/cluster-api/cmd/clusterctl"
)

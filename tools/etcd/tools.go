//go:build tools

// Package tools records the main package this tools module builds; it is never compiled
// into anything (build tag "tools").
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
)

//go:build tools

// Package tools records the main packages this tools module builds: cert-manager's controller and
// CA injector, which issue the webhook certificates of the providers `clusterctl init` installs in
// the clusterctl e2e (devenv/cert-manager.ts). v1.11 is the newest release whose module still
// carries cmd/ (later releases publish each command as its own module, which the module proxy
// does not serve). It is never compiled into anything (build tag "tools").
package tools

import (
	_ "github.com/cert-manager/cert-manager/cmd/cainjector"
	_ "github.com/cert-manager/cert-manager/cmd/controller"
)

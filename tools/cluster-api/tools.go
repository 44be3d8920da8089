//go:build tools

// Package tools records the main packages this tools module builds (Cluster API's core, kubeadm
// bootstrap and kubeadm control-plane managers); it is never compiled into anything (build tag
// "tools").
package tools

import (
	_ "sigs.k8s.io/cluster-api/bootstrap/kubeadm"
	_ "sigs.k8s.io/cluster-api/controlplane/kubeadm"
	_ "sigs.k8s.io/cluster-api/core"
)

// Tools module: pins Metacontroller v4.17.2 so scripts/setup-test-binaries.sh can build the
// real metacontroller binary (main package metacontroller/pkg/cmd/metacontroller) for tests.
// Not imported by any Ironhook code.
//
// Metacontroller's own go.mod declares the bare module path "metacontroller", so it is
// required under that path and replaced by the GitHub module at the pseudo-version of the
// v4.17.2 release commit 76b818bdc67ba56570abe5f69f714d56c0ff5c52 (2026-08-13 21:33:14 UTC).
module ironhook/tools/metacontroller

go 1.26.4

require metacontroller v0.0.0-20260813213314-76b818bdc67b

replace metacontroller => github.com/metacontroller/metacontroller v0.0.0-20260813213314-76b818bdc67b

// Metacontroller's go.mod pins the k8s.io libraries with replace directives; replaces of a
// dependency are ignored, so they are repeated here.
replace (
	k8s.io/api => k8s.io/api v0.36.3
	k8s.io/apiextensions-apiserver => k8s.io/apiextensions-apiserver v0.36.3
	k8s.io/apimachinery => k8s.io/apimachinery v0.36.3
	k8s.io/client-go => k8s.io/client-go v0.36.3
	k8s.io/component-base => k8s.io/component-base v0.36.3
)

// Not a module anyone builds: this go.mod keeps the wrapper files below out of the oracle's own
// module. scripts/setup-test-binaries.sh copies each <module path>/ tree into a copy of that
// upstream module; see README.md.
module ironhook/tools/oracle/export

go 1.26.0

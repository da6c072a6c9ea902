// Package golden holds syncer-gen's golden test input and output: the API
// packages under api/ use every marker syncer-gen knows, and syncers/ is what
// syncer-gen generates from them. hack/update-codegen.sh regenerates
// syncers/, hack/verify-codegen.sh fails when it differs from what the
// generator makes, and the generated code is compiled, vetted and run by the
// tests of this folder.
package golden

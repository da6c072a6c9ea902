# syncer-gen: see README.md.
SHELL := /usr/bin/env bash
GO ?= go

.PHONY: testbed testbed-default test unit vet lint staticcheck generate verify api demo bench

## demo: generate the examples' syncers and run them against a local etcd + kube-apiserver it starts
demo: testbed-default generate
	$(GO) run ./examples/demo

## test: the whole suite, against a real etcd and kube-apiserver it builds and starts
test: testbed vet lint verify
	$(GO) test -count=1 -timeout 60m ./...

## unit: only the tests that need no server
unit:
	$(GO) test -count=1 -short ./...

## generate: regenerate every checked-in generated file (examples, golden fixtures)
generate:
	hack/update-codegen.sh

## verify: fail when a checked-in generated file differs from what the generator makes, or the exported API breaks with no CHANGELOG.md entry
verify:
	hack/verify-codegen.sh
	hack/verify-api.sh

## api: record the exported API and the generated code of a release (when one is cut; see CHANGELOG.md)
api:
	hack/update-api.sh

## bench: our syncer against client-go's informer and the stream floors, in one run
bench: testbed-default
	$(GO) run ./bench $(BENCH_FLAGS)

## testbed: build etcd and every kube-apiserver version the tests run from the Go module proxy into bin/ (once)
testbed:
	hack/build-testbed.sh

## testbed-default: build etcd and only the default kube-apiserver (what the demo and the benchmarks start)
testbed-default:
	hack/build-testbed.sh --default

## lint: staticcheck, built from the Go module proxy at the version hack/build-tool.sh pins
lint: staticcheck
	bin/staticcheck ./...

## staticcheck: build bin/staticcheck (once per pinned version)
staticcheck:
	hack/build-tool.sh staticcheck

## vet: go vet, and gofmt must have nothing to say
vet:
	$(GO) vet ./...
	@out="$$(gofmt -l $$(git ls-files -co --exclude-standard '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

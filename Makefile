# syncer-gen: see README.md.
SHELL := /usr/bin/env bash
GO ?= go

.PHONY: testbed test unit vet

## testbed: build etcd and kube-apiserver from the Go module proxy into bin/ (once)
testbed:
	hack/build-testbed.sh

## test: the whole suite, against a real etcd and kube-apiserver it builds and starts
test: testbed vet
	$(GO) test -count=1 -timeout 40m ./...

## unit: only the tests that need no server
unit:
	$(GO) test -count=1 -short ./...

vet:
	$(GO) vet ./...

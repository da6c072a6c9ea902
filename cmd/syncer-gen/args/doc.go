// Package args holds syncer-gen's command-line arguments: the flags, their
// defaults and their validation, apart from what the tool does with them.
package args

package main

import (
	"fmt"
	"os"
)

// childCommand is the hidden first argument that makes the binary run one
// contender instead of the benchmark.
const childCommand = "__contender"

func main() {
	if len(os.Args) > 1 && os.Args[1] == childCommand {
		if err := childMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "bench child:", err)
			os.Exit(1)
		}
		return
	}
	if err := benchMain(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

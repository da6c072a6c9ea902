// Package walkthrough tests the README's "Using syncer-gen in a CRD
// project": it takes the blocks marked <!-- walkthrough:sh --> (commands)
// and <!-- walkthrough:file PATH --> (files) from README.md, in order, runs
// them as one shell script in a throwaway folder, with SYNCER_GEN set to
// this checkout, and checks that the result builds. The README is the
// test's input, so the two cannot drift apart.
package walkthrough

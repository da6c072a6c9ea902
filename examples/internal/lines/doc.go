// Package lines reads a program's output line by line and lets a caller
// wait, with a deadline, for the next line that matches a pattern. The
// demo uses it to follow its child processes and the tests to follow the
// examples run in-process: they synchronise on what the program says, not
// on sleeps.
package lines

// Package output writes a generator's files into a folder as one change:
// every file is written next to its destination first and renamed into
// place only when all were written, so a failed run leaves the folder as it
// was; files an earlier run generated and this one does not are removed.
package output

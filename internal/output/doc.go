// Package output writes a generator's files into a folder as one change:
// every file is written next to its destination first and renamed into
// place only when all were written, so a failed run leaves the folder as it
// was. Several runs can share one folder: a run owns the output packages
// generated from the packages it reads (each package's doc.go records its
// sources), rewrites and removes generated files in those only, and fails,
// writing nothing, rather than touch another run's.
package output

// Package testmodule writes throwaway Go modules for tests of code that
// loads packages (the generator), so that they can use any source without
// touching the repository.
package testmodule

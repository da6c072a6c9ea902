package driver

// Contender is one way of getting the objects, run in its own process.
type Contender struct {
	Name string
	// Steady: the contender also runs the steady-state round.
	Steady bool
	// Slow: the contender has a second handler, slow in the steady state.
	Slow bool
	// Quiet: once synced, before any steady state, the contender is
	// measured with no event, from outside its process: its idle CPU and
	// wake-ups.
	Quiet bool
	// Slope: after its steady state, the contender runs more at other
	// update rates, so that its CPU can be fitted against the rate.
	Slope bool
	// Env is added to the child's environment (which is otherwise the
	// parent's, so GOGC and GOMAXPROCS are the same for every contender).
	Env []string
	// Args are more flags of the child's program (see child.ParseArgs),
	// after those every contender gets.
	Args []string
	// What says what it does, for the table's legend.
	What string
}

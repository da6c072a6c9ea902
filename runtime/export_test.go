package runtime

// GetCost exposes getCost to the tests of package runtime_test.
func GetCost() int { return getCost }

// MaxWarmFailures exposes maxWarmFailures to the tests of package runtime_test.
const MaxWarmFailures = maxWarmFailures

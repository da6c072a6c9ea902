package runtime

// GetCost exposes getCost to the tests of package runtime_test.
func GetCost() int { return getCost }

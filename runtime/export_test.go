package runtime

// GetCost exposes getCost to the tests of package runtime_test.
func GetCost() int { return getCost }

// MaxWarmFailures exposes maxWarmFailures to the tests of package runtime_test.
const MaxWarmFailures = maxWarmFailures

// SlotBytes exposes slotBytes, what Store.Bytes counts for an object's map slot.
func SlotBytes[T Object]() int64 { return slotBytes[T]() }

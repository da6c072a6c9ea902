package ctrlsyncer

// ManagerReadsItsWrites is managerReadsItsWrites, for the tests.
var ManagerReadsItsWrites = managerReadsItsWrites

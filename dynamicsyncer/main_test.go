package dynamicsyncer_test

import (
	"os"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

func TestMain(m *testing.M) { os.Exit(testbed.Main(m)) }

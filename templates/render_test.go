package templates

import "testing"

// Unexported names lower a leading initialism whole, as Go style writes them.
func TestLowerFirst(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPRoute": "httpRoute", "ConfigMap": "configMap", "URL": "url", "XMesh": "xMesh",
		"IPAddress": "ipAddress", "Pod": "pod", "GRPCRoute": "grpcRoute", "": "",
	} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

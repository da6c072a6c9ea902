package testbed

import (
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Launch starts etcd and kube-apiserver in dir for a program (a demo, a
// benchmark) rather than a test. The caller must call Stop.
func Launch(dir string, opts ...Option) (*Server, error) { return start(dir, opts...) }

// WriteKubeconfig writes an admin kubeconfig for the server to path.
func (s *Server) WriteKubeconfig(path string) error {
	c := clientcmdapi.NewConfig()
	c.Clusters["testbed"] = &clientcmdapi.Cluster{Server: s.URL(), InsecureSkipTLSVerify: true}
	c.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: AdminToken}
	c.Contexts["testbed"] = &clientcmdapi.Context{Cluster: "testbed", AuthInfo: "admin"}
	c.CurrentContext = "testbed"
	return clientcmd.WriteToFile(*c, path)
}

// Relaunch stops kube-apiserver and starts it again on the same port and
// etcd, as RestartAPIServer does in a test: a fresh process, whose watch
// cache starts afresh.
func (s *Server) Relaunch() error {
	s.StopAPIServer()
	return s.startAPIServer()
}

package widgetclient

import (
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// Plural is the widgets' resource.
const Plural = "widgets"

// New returns a REST client of widgets' group and version, JSON.
func New(cfg *rest.Config) (*rest.RESTClient, error) {
	scheme := kruntime.NewScheme()
	if err := shopv1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &shopv1alpha1.SchemeGroupVersion
	c.APIPath = "/apis"
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	c.ContentType = kruntime.ContentTypeJSON
	c.AcceptContentTypes = kruntime.ContentTypeJSON
	return rest.RESTClientFor(c)
}

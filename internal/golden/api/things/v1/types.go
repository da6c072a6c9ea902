package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Phase is where a Gadget is in its life.
type Phase string

// Level is how loud a Gadget is.
type Level uint8

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Gadget has an index of every kind of field path syncer-gen supports.
//
// +syncer-gen:index(owner)=.spec.owner
// +syncer-gen:index=.status.phase
// +syncer-gen:index(ready)=.status.ready
// +syncer-gen:index(replicas)=.spec.replicas
// +syncer-gen:index(level)=.spec.level
// +syncer-gen:index(zone)=.spec.zone
// +syncer-gen:index=.spec.tags
// +syncer-gen:index(port)=.spec.ports.name
// +syncer-gen:index(team)=.metadata.labels['example.com/team']
// +syncer-gen:index(parent)=.spec.parentRef.name
// +syncer-gen:index(kind)=.kind
// +syncer-gen:index(controller)=.metadata.ownerReferences[?(@.controller==true && @.kind=='Gadget' && @.apiVersion=="things.golden.example.com/v1")].name
// +syncer-gen:index(webPort)=.spec.ports[?@.port==80 && @.name!='debug'].name
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GadgetSpec   `json:"spec,omitempty"`
	Status GadgetStatus `json:"status,omitempty"`
}

// GadgetSpec is the desired state of a Gadget. Past its first fields it
// is shaped like a cert-manager Certificate's, so that a Gadget weighs what
// a real custom resource does (the projection benchmarks read it).
type GadgetSpec struct {
	Owner     string     `json:"owner"`
	Replicas  int32      `json:"replicas,omitempty"`
	Level     Level      `json:"level,omitempty"`
	Zone      *string    `json:"zone,omitempty"`
	Tags      []string   `json:"tags,omitempty"`
	Ports     []Port     `json:"ports,omitempty"`
	ParentRef *ParentRef `json:"parentRef,omitempty"`

	SecretName     string           `json:"secretName,omitempty"`
	CommonName     string           `json:"commonName,omitempty"`
	DNSNames       []string         `json:"dnsNames,omitempty"`
	IPAddresses    []string         `json:"ipAddresses,omitempty"`
	URIs           []string         `json:"uris,omitempty"`
	EmailAddresses []string         `json:"emailAddresses,omitempty"`
	IsCA           bool             `json:"isCA,omitempty"`
	Usages         []string         `json:"usages,omitempty"`
	Duration       *metav1.Duration `json:"duration,omitempty"`
	RenewBefore    *metav1.Duration `json:"renewBefore,omitempty"`
	IssuerRef      IssuerRef        `json:"issuerRef"`
	Subject        *Subject         `json:"subject,omitempty"`
	PrivateKey     *PrivateKey      `json:"privateKey,omitempty"`
	SecretTemplate *SecretTemplate  `json:"secretTemplate,omitempty"`
}

// IssuerRef names what issues a Gadget's certificate.
type IssuerRef struct {
	Name  string `json:"name"`
	Kind  string `json:"kind,omitempty"`
	Group string `json:"group,omitempty"`
}

// Subject is the subject of a certificate.
type Subject struct {
	Organizations       []string `json:"organizations,omitempty"`
	Countries           []string `json:"countries,omitempty"`
	OrganizationalUnits []string `json:"organizationalUnits,omitempty"`
	Localities          []string `json:"localities,omitempty"`
	Provinces           []string `json:"provinces,omitempty"`
	StreetAddresses     []string `json:"streetAddresses,omitempty"`
	PostalCodes         []string `json:"postalCodes,omitempty"`
	SerialNumber        string   `json:"serialNumber,omitempty"`
}

// PrivateKey is how a certificate's key is made.
type PrivateKey struct {
	RotationPolicy string `json:"rotationPolicy,omitempty"`
	Encoding       string `json:"encoding,omitempty"`
	Algorithm      string `json:"algorithm,omitempty"`
	Size           int    `json:"size,omitempty"`
}

// SecretTemplate is what the certificate's Secret carries.
type SecretTemplate struct {
	Annotations map[string]string `json:"annotations,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
}

// Port is a named port.
type Port struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// ParentRef names another Gadget.
type ParentRef struct {
	Name string `json:"name"`
}

// GadgetStatus is the observed state of a Gadget.
type GadgetStatus struct {
	Phase Phase `json:"phase,omitempty"`
	Ready bool  `json:"ready,omitempty"`

	Conditions               []metav1.Condition `json:"conditions,omitempty"`
	NotBefore                *metav1.Time       `json:"notBefore,omitempty"`
	NotAfter                 *metav1.Time       `json:"notAfter,omitempty"`
	RenewalTime              *metav1.Time       `json:"renewalTime,omitempty"`
	Revision                 *int               `json:"revision,omitempty"`
	NextPrivateKeySecretName *string            `json:"nextPrivateKeySecretName,omitempty"`
	FailedIssuanceAttempts   *int               `json:"failedIssuanceAttempts,omitempty"`
}

// GadgetList is a list of Gadgets.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gadget `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Datum is cluster-scoped, has a plural the namer would get wrong, and
// keeps its managed fields.
//
// +syncer-gen:plural=data
// +syncer-gen:stripManagedFields=false
type Datum struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Value string `json:"value,omitempty"`
}

// DatumList is a list of Data.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type DatumList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Datum `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=create
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Request can only be created: it cannot be listed or watched, so the
// package marker does not select it.
type Request struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Hidden is a +genclient type that opts out of the package marker.
//
// +syncer-gen=false
type Hidden struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// HiddenList is a list of Hidden.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type HiddenList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Hidden `json:"items"`
}

package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is a thing a shop sells. The syncer-gen markers ask for a syncer
// of widgets whose store is indexed by owner and by color.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +syncer-gen
// +syncer-gen:index(owner)=.spec.owner
// +syncer-gen:index(color)=.spec.color
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is what the owner of a widget asked for.
type WidgetSpec struct {
	// Owner is who the widget belongs to.
	Owner string `json:"owner,omitempty"`
	// Size is the widget's size, in units.
	Size int32 `json:"size,omitempty"`
	// Color is the widget's color.
	Color string `json:"color,omitempty"`
}

// WidgetStatus is what the shop observed of a widget.
type WidgetStatus struct {
	// Phase is where the widget is in its life: Pending, Ready, Sold.
	Phase string `json:"phase,omitempty"`
}

// WidgetList is a list of widgets.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Widget `json:"items"`
}

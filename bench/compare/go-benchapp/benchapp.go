// Package benchapp is the BenchApp kind (bench.op-gen.dev/v1) as the controller-runtime bench
// operators (go-operator, go-scale, go-dependents) read it: the Go types, their deep copies and a
// scheme with client-go's types and this kind. Bench only; not part of the product.
package benchapp

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// GroupVersion of the BenchApp CRD (bench/compare/benchapp-crd.yaml).
var GroupVersion = schema.GroupVersion{Group: "bench.op-gen.dev", Version: "v1"}

type BenchAppSpec struct {
	Image    string `json:"image"`
	Replicas int32  `json:"replicas"`
}

type BenchAppStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

type BenchApp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BenchAppSpec   `json:"spec,omitempty"`
	Status            BenchAppStatus `json:"status,omitempty"`
}

type BenchAppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BenchApp `json:"items"`
}

func (in *BenchApp) DeepCopyInto(out *BenchApp) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			in.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

func (in *BenchApp) DeepCopyObject() runtime.Object {
	out := new(BenchApp)
	in.DeepCopyInto(out)
	return out
}

func (in *BenchAppList) DeepCopyObject() runtime.Object {
	out := new(BenchAppList)
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]BenchApp, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// NewScheme is client-go's scheme plus BenchApp and BenchAppList.
func NewScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	scheme.AddKnownTypes(GroupVersion, &BenchApp{}, &BenchAppList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return scheme
}

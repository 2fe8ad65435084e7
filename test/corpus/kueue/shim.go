// Written for op-gen's corpus (not kueue's file): the two named string types that the copied
// kueue files use from workload_types.go, which the corpus leaves out, with the same markers.

package v1beta2

// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
type PodSetReference string

// +kubebuilder:validation:MaxLength=316
// +kubebuilder:validation:MinLength=1
type AdmissionCheckReference string

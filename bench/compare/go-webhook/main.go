// The controller-runtime side of `npm run bench:webhook`: a webhook server (controller-runtime's
// webhook.Server with CustomDefaulter/CustomValidator on a typed Widget, as a kubebuilder project
// has) doing what test/fixtures/webhook/widget-webhooks.ts does: spec.replicas defaults to twice
// spec.size; spec.size at least 1 and spec.replicas at most 3 × spec.size, else Invalid with field
// paths; a warning above size 10.
// Usage: go-webhook --host 127.0.0.1 --port 9443 --cert-dir DIR
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

var gv = schema.GroupVersion{Group: "example.com", Version: "v2"}

type WidgetSpec struct {
	Size     int64  `json:"size"`
	Replicas *int64 `json:"replicas,omitempty"`
	Tier     string `json:"tier,omitempty"`
}

type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec"`
}

func (w *Widget) DeepCopyObject() runtime.Object {
	out := &Widget{TypeMeta: w.TypeMeta, Spec: w.Spec}
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if w.Spec.Replicas != nil {
		r := *w.Spec.Replicas
		out.Spec.Replicas = &r
	}
	return out
}

type defaulter struct{}

func (defaulter) Default(_ context.Context, obj runtime.Object) error {
	w := obj.(*Widget)
	if w.Spec.Replicas == nil {
		r := w.Spec.Size * 2
		w.Spec.Replicas = &r
	}
	return nil
}

type validator struct{}

func check(w *Widget) (admission.Warnings, error) {
	var errs field.ErrorList
	if w.Spec.Size < 1 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "size"), w.Spec.Size, "must be at least 1"))
	}
	var replicas int64
	if w.Spec.Replicas != nil {
		replicas = *w.Spec.Replicas
	}
	if replicas > w.Spec.Size*3 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "replicas"), replicas,
			fmt.Sprintf("must be at most 3 × spec.size (%d)", w.Spec.Size*3)))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: gv.Group, Kind: "Widget"}, w.Name, errs)
	}
	if w.Spec.Size > 10 {
		return admission.Warnings{fmt.Sprintf("spec.size %d is large; consider splitting the widget", w.Spec.Size)}, nil
	}
	return nil, nil
}

func (validator) ValidateCreate(_ context.Context, obj runtime.Object) (admission.Warnings, error) {
	return check(obj.(*Widget))
}

func (validator) ValidateUpdate(_ context.Context, oldObj, newObj runtime.Object) (admission.Warnings, error) {
	o, n := oldObj.(*Widget), newObj.(*Widget)
	if o.Spec.Tier != "" && n.Spec.Tier != o.Spec.Tier {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: gv.Group, Kind: "Widget"}, n.Name,
			field.ErrorList{field.Forbidden(field.NewPath("spec", "tier"), "is immutable once set")})
	}
	return check(n)
}

func (validator) ValidateDelete(context.Context, runtime.Object) (admission.Warnings, error) {
	return nil, nil
}

func main() {
	host := flag.String("host", "127.0.0.1", "listen host")
	port := flag.Int("port", 9443, "listen port")
	certDir := flag.String("cert-dir", "", "directory with tls.crt and tls.key")
	flag.Parse()

	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(gv, &Widget{})
	metav1.AddToGroupVersion(scheme, gv)

	// HTTP/1.1 only, as a kubebuilder scaffold serves by default (--enable-http2=false), and as op-gen does.
	disableHTTP2 := func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }
	srv := webhook.NewServer(webhook.Options{Host: *host, Port: *port, CertDir: *certDir,
		TLSOpts: []func(*tls.Config){disableHTTP2}})
	srv.Register("/mutate-example-com-v2-widget", admission.WithCustomDefaulter(scheme, &Widget{}, defaulter{}))
	srv.Register("/validate-example-com-v2-widget", admission.WithCustomValidator(scheme, &Widget{}, validator{}))

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// What the two bench operators (main.go: BenchApp, memcached.go: Memcached) share: the scheme with
// client-go's types and the one custom kind, the controller wiring (the kind, owning Deployments),
// the deep copies of their conditions and lists, and ending the process on a setup error.
package main

import (
	"os"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// newScheme is client-go's scheme plus the kind and its list in gv.
func newScheme(gv schema.GroupVersion, kind, list runtime.Object) *runtime.Scheme {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	scheme.AddKnownTypes(gv, kind, list)
	metav1.AddToGroupVersion(scheme, gv)
	return scheme
}

// exitOnError prints err on stderr and exits 1; nothing when err is nil.
func exitOnError(err error) {
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}

// newManager is ctrl.NewManager; a setup error ends the process.
func newManager(cfg *rest.Config, opts ctrl.Options) ctrl.Manager {
	mgr, err := ctrl.NewManager(cfg, opts)
	exitOnError(err)
	return mgr
}

// completeController runs r for kind, requeueing the owner of a changed Deployment.
func completeController(mgr ctrl.Manager, kind client.Object, opts controller.Options, r reconcile.Reconciler) {
	exitOnError(ctrl.NewControllerManagedBy(mgr).
		For(kind).
		Owns(&appsv1.Deployment{}).
		WithOptions(opts).
		Complete(r))
}

// startManager runs mgr until SIGTERM/SIGINT; a failure ends the process.
func startManager(mgr ctrl.Manager) {
	exitOnError(mgr.Start(ctrl.SetupSignalHandler()))
}

func deepCopyConditions(in []metav1.Condition) []metav1.Condition {
	if in == nil {
		return nil
	}
	out := make([]metav1.Condition, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	return out
}

// deepCopyItems copies a list's items with the kind's DeepCopyInto.
func deepCopyItems[T any](in []T, deepCopyInto func(in, out *T)) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i := range in {
		deepCopyInto(&in[i], &out[i])
	}
	return out
}

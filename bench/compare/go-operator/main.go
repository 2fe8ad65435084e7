// The controller-runtime side of op-gen's runtime comparison (issue 10): exactly what the op-gen bench
// operator does for the BenchApp kind. Get from cache, create a Deployment with an owner reference if
// missing, set a Ready condition through the status subresource. Built and run only by bench/compare.
package main

import (
	"context"
	"flag"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"op-gen.local/bench/benchapp"
)

// The BenchApp kind, shared with the other controller-runtime bench operators (go-benchapp).
var groupVersion = benchapp.GroupVersion

type BenchApp = benchapp.BenchApp
type BenchAppList = benchapp.BenchAppList

type reconciler struct {
	client.Client
	scheme *runtime.Scheme
	// readOnly: only read the BenchApp from the cache (bench:memory measures the cache, not the writes).
	readOnly bool
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app BenchApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.readOnly {
		return ctrl.Result{}, nil
	}
	var dep appsv1.Deployment
	err := r.Get(ctx, types.NamespacedName{Namespace: app.Namespace, Name: app.Name}, &dep)
	if apierrors.IsNotFound(err) {
		labels := map[string]string{"app.kubernetes.io/name": "benchapp", "app.kubernetes.io/instance": app.Name}
		replicas := app.Spec.Replicas
		dep = appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace, Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: app.Spec.Image}}},
				},
			},
		}
		if err := ctrl.SetControllerReference(&app, &dep, r.scheme); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &dep); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, err
		}
	} else if err != nil {
		return ctrl.Result{}, err
	}
	if !meta.IsStatusConditionTrue(app.Status.Conditions, "Ready") {
		meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{
			Type: "Ready", Status: metav1.ConditionTrue, Reason: "DeploymentCreated",
			Message: "the Deployment exists", ObservedGeneration: app.Generation,
		})
		if err := r.Status().Update(ctx, &app); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	return ctrl.Result{}, nil
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "memcached" {
		runMemcached(os.Args[2:])
		return
	}
	workers := flag.Int("workers", 1, "MaxConcurrentReconciles")
	qps := flag.Float64("qps", -1, "client QPS (-1: no client-side rate limit)")
	burst := flag.Int("burst", 1000, "client burst")
	metricsAddr := flag.String("metrics-bind-address", "0", "where /metrics listens (plain HTTP); 0: off")
	readOnly := flag.Bool("read-only", false, "reconcile by reading the BenchApp from the cache only")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseDevMode(false)))

	scheme := newScheme(groupVersion, &BenchApp{}, &BenchAppList{})
	cfg := ctrl.GetConfigOrDie()
	cfg.QPS = float32(*qps)
	cfg.Burst = *burst
	mgr := newManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: *metricsAddr},
		HealthProbeBindAddress: "0",
	})
	completeController(mgr, &BenchApp{}, controller.Options{MaxConcurrentReconciles: *workers},
		&reconciler{Client: mgr.GetClient(), scheme: scheme, readOnly: *readOnly})
	startManager(mgr)
}

// The controller-runtime side of the dependents comparison (bench/compare/dependents-compare.ts): the
// operator of op-gen-dependents-operator.mjs written by hand as a kubebuilder user writes it. For each
// BenchApp: a ConfigMap and a Secret, then a Deployment using both, then a Service, each through
// controllerutil.CreateOrUpdate (get from the cache, set the fields this operator owns, update only
// when something changed) with the BenchApp as controller owner; then the same five conditions the
// op-gen workflow writes (ConfigReady, SecretReady, DeploymentReady, ServiceReady, Ready), updated
// through the status subresource only when one changed, and the same events (Normal Created/Updated
// per child written, through controller-runtime's event recorder). A child counts as ready once it exists (no
// kube-controller-manager runs on the test control plane, so no Deployment ever becomes available;
// the op-gen side declares the same readiness). The BenchApp types repeat go-operator/main.go's
// (a separate Go module). With --apply the children are written as op-gen writes them, by server-side
// apply (the same four objects as unstructured content, applied on every reconcile without force, as
// a hand-written SSA reconciler does), to tell the API server's cost of an apply from the runtime's.
// Built and run only by the bench.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
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
	scheme   *runtime.Scheme
	recorder record.EventRecorder
	// apply: write the children by server-side apply (see the header).
	apply bool
}

// setLabels adds this operator's labels to an object's, keeping any others.
func setLabels(obj metav1.Object, labels map[string]string) {
	all := obj.GetLabels()
	if all == nil {
		all = map[string]string{}
	}
	for k, v := range labels {
		all[k] = v
	}
	obj.SetLabels(all)
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app BenchApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if r.apply {
		return r.reconcileByApply(ctx, &app)
	}
	labels := map[string]string{"app.kubernetes.io/name": "benchapp", "app.kubernetes.io/instance": app.Name}
	before := append([]metav1.Condition(nil), app.Status.Conditions...)
	ready := func(t string) {
		meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{
			Type: t, Status: metav1.ConditionTrue, Reason: "Ready", Message: "ready",
			ObservedGeneration: app.Generation,
		})
	}
	own := func(obj client.Object) error { return controllerutil.SetControllerReference(&app, obj, r.scheme) }
	// The event the op-gen workflow records for a child it wrote.
	written := func(kind, name, dependent string, op controllerutil.OperationResult) {
		switch op {
		case controllerutil.OperationResultCreated:
			r.recorder.Event(&app, corev1.EventTypeNormal, "Created", fmt.Sprintf("%s %s created (dependent %s)", kind, name, dependent))
		case controllerutil.OperationResultUpdated:
			r.recorder.Event(&app, corev1.EventTypeNormal, "Updated", fmt.Sprintf("%s %s updated (dependent %s)", kind, name, dependent))
		}
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: app.Name + "-config", Namespace: app.Namespace}}
	if op, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		setLabels(cm, labels)
		cm.Data = map[string]string{"IMAGE": app.Spec.Image}
		return own(cm)
	}); err != nil {
		return ctrl.Result{}, err
	} else {
		written("ConfigMap", cm.Name, "config", op)
	}
	ready("ConfigReady")

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: app.Name + "-secret", Namespace: app.Namespace}}
	if op, err := controllerutil.CreateOrUpdate(ctx, r.Client, secret, func() error {
		setLabels(secret, labels)
		secret.Data = map[string][]byte{"token": []byte("bench")}
		return own(secret)
	}); err != nil {
		return ctrl.Result{}, err
	} else {
		written("Secret", secret.Name, "secret", op)
	}
	ready("SecretReady")

	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	if op, err := controllerutil.CreateOrUpdate(ctx, r.Client, dep, func() error {
		setLabels(dep, labels)
		replicas := app.Spec.Replicas
		dep.Spec.Replicas = &replicas
		if dep.Spec.Selector == nil {
			dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		setLabels(&dep.Spec.Template, labels)
		// Set the fields this operator owns in place: replacing the container would drop the
		// server's defaults (terminationMessagePath, imagePullPolicy) and update on every pass.
		if len(dep.Spec.Template.Spec.Containers) != 1 || dep.Spec.Template.Spec.Containers[0].Name != "app" {
			dep.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app"}}
		}
		c := &dep.Spec.Template.Spec.Containers[0]
		c.Image = app.Spec.Image
		c.EnvFrom = []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: secret.Name}}},
		}
		return own(dep)
	}); err != nil {
		return ctrl.Result{}, err
	} else {
		written("Deployment", dep.Name, "deployment", op)
	}
	ready("DeploymentReady")

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	if op, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		setLabels(svc, labels)
		svc.Spec.Selector = labels
		// As the container: keep the defaulted protocol and targetPort of an existing port.
		if len(svc.Spec.Ports) != 1 {
			svc.Spec.Ports = []corev1.ServicePort{{}}
		}
		svc.Spec.Ports[0].Name = "http"
		svc.Spec.Ports[0].Port = 80
		return own(svc)
	}); err != nil {
		return ctrl.Result{}, err
	} else {
		written("Service", svc.Name, "service", op)
	}
	ready("ServiceReady")
	ready("Ready")

	if !conditionsEqual(before, app.Status.Conditions) {
		if err := r.Status().Update(ctx, &app); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	return ctrl.Result{}, nil
}

// reconcileByApply writes the four children by server-side apply (field manager "bench", no force),
// then the same conditions and events as Reconcile.
func (r *reconciler) reconcileByApply(ctx context.Context, app *BenchApp) (ctrl.Result, error) {
	before := append([]metav1.Condition(nil), app.Status.Conditions...)
	labels := map[string]interface{}{"app.kubernetes.io/name": "benchapp", "app.kubernetes.io/instance": app.Name}
	owner := []interface{}{map[string]interface{}{
		"apiVersion": groupVersion.String(), "kind": "BenchApp", "name": app.Name, "uid": string(app.UID),
		"controller": true, "blockOwnerDeletion": true,
	}}
	object := func(apiVersion, kind, name string, content map[string]interface{}) *unstructured.Unstructured {
		content["apiVersion"] = apiVersion
		content["kind"] = kind
		content["metadata"] = map[string]interface{}{
			"name": name, "namespace": app.Namespace, "labels": labels, "ownerReferences": owner,
		}
		return &unstructured.Unstructured{Object: content}
	}
	// live: the typed object the cache holds (an unstructured Get would start a second informer).
	children := []struct {
		obj       *unstructured.Unstructured
		dependent string
		condition string
		live      client.Object
	}{
		{object("v1", "ConfigMap", app.Name+"-config", map[string]interface{}{
			"data": map[string]interface{}{"IMAGE": app.Spec.Image}}), "config", "ConfigReady", &corev1.ConfigMap{}},
		{object("v1", "Secret", app.Name+"-secret", map[string]interface{}{
			"data": map[string]interface{}{"token": "YmVuY2g="}}), "secret", "SecretReady", &corev1.Secret{}},
		{object("apps/v1", "Deployment", app.Name, map[string]interface{}{"spec": map[string]interface{}{
			"replicas": int64(app.Spec.Replicas),
			"selector": map[string]interface{}{"matchLabels": labels},
			"template": map[string]interface{}{
				"metadata": map[string]interface{}{"labels": labels},
				"spec": map[string]interface{}{"containers": []interface{}{map[string]interface{}{
					"name": "app", "image": app.Spec.Image,
					"envFrom": []interface{}{
						map[string]interface{}{"configMapRef": map[string]interface{}{"name": app.Name + "-config"}},
						map[string]interface{}{"secretRef": map[string]interface{}{"name": app.Name + "-secret"}},
					},
				}}},
			},
		}}), "deployment", "DeploymentReady", &appsv1.Deployment{}},
		{object("v1", "Service", app.Name, map[string]interface{}{"spec": map[string]interface{}{
			"selector": labels,
			"ports":    []interface{}{map[string]interface{}{"name": "http", "port": int64(80)}},
		}}), "service", "ServiceReady", &corev1.Service{}},
	}
	for _, c := range children {
		getErr := r.Get(ctx, client.ObjectKeyFromObject(c.obj), c.live)
		if getErr != nil && !apierrors.IsNotFound(getErr) {
			return ctrl.Result{}, getErr
		}
		if err := r.Patch(ctx, c.obj, client.Apply, client.FieldOwner("bench")); err != nil {
			return ctrl.Result{}, err
		}
		name := c.obj.GetName()
		if getErr != nil {
			r.recorder.Event(app, corev1.EventTypeNormal, "Created", fmt.Sprintf("%s %s created (dependent %s)", c.obj.GetKind(), name, c.dependent))
		} else if c.live.GetResourceVersion() != c.obj.GetResourceVersion() {
			r.recorder.Event(app, corev1.EventTypeNormal, "Updated", fmt.Sprintf("%s %s updated (dependent %s)", c.obj.GetKind(), name, c.dependent))
		}
		meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{
			Type: c.condition, Status: metav1.ConditionTrue, Reason: "Ready", Message: "ready",
			ObservedGeneration: app.Generation,
		})
	}
	meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ready", Message: "ready",
		ObservedGeneration: app.Generation,
	})
	if !conditionsEqual(before, app.Status.Conditions) {
		if err := r.Status().Update(ctx, app); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	return ctrl.Result{}, nil
}

// conditionsEqual: the same conditions (type, status, reason, message, observedGeneration).
func conditionsEqual(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for _, c := range a {
		d := meta.FindStatusCondition(b, c.Type)
		if d == nil || d.Status != c.Status || d.Reason != c.Reason || d.Message != c.Message ||
			d.ObservedGeneration != c.ObservedGeneration {
			return false
		}
	}
	return true
}

func exitOnError(err error) {
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}

func main() {
	workers := flag.Int("workers", 4, "MaxConcurrentReconciles")
	metricsAddr := flag.String("metrics-bind-address", "0", "where /metrics listens (plain HTTP); 0: off")
	apply := flag.Bool("apply", false, "write the children by server-side apply on every reconcile")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseDevMode(false)))

	scheme := benchapp.NewScheme()

	cfg := ctrl.GetConfigOrDie()
	// No client-side rate limit, as go-operator (the op-gen client has none).
	cfg.QPS = -1
	cfg.Burst = 1000
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: *metricsAddr},
		HealthProbeBindAddress: "0",
	})
	exitOnError(err)
	exitOnError(ctrl.NewControllerManagedBy(mgr).
		For(&BenchApp{}).
		Owns(&corev1.ConfigMap{}).
		Owns(&corev1.Secret{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: *workers}).
		Complete(&reconciler{Client: mgr.GetClient(), scheme: scheme, recorder: mgr.GetEventRecorderFor("benchapp"), apply: *apply}))
	exitOnError(mgr.Start(ctrl.SetupSignalHandler()))
}

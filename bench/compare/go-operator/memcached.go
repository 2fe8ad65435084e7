// The controller-runtime side of `npm run bench:faults`: what op-gen's scaffolded Memcached
// controller does (templates/create-api/controller), written the way a kubebuilder user would:
// finalizer, a Deployment applied with server-side apply (forced, field owner memcached-operator) only
// if it is ours, Ready with observedGeneration in status, Ready=False and a Warning event on failures
// a user must act on. Run as `op-gen-bench-go-operator memcached` with the scaffold's flags. It
// prints the same JSON log lines as op-gen's manager for the moments the fault suite watches
// (manager started, waiting to acquire / acquired / released the leader lease, manager stopped).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

var memcachedGV = schema.GroupVersion{Group: "cache.example.com", Version: "v1alpha1"}

const memcachedFinalizer = "cache.example.com/finalizer"
const fieldManager = "memcached-operator"

type MemcachedSpec struct {
	Size  *int32 `json:"size,omitempty"`
	Image string `json:"image"`
}

type MemcachedStatus struct {
	Conditions    []metav1.Condition `json:"conditions,omitempty"`
	ReadyReplicas int32              `json:"readyReplicas,omitempty"`
}

type Memcached struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MemcachedSpec   `json:"spec,omitempty"`
	Status            MemcachedStatus `json:"status,omitempty"`
}

type MemcachedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Memcached `json:"items"`
}

func (in *Memcached) DeepCopyInto(out *Memcached) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Size != nil {
		size := *in.Spec.Size
		out.Spec.Size = &size
	}
	out.Status.Conditions = deepCopyConditions(in.Status.Conditions)
}

func (in *Memcached) DeepCopyObject() runtime.Object {
	out := new(Memcached)
	in.DeepCopyInto(out)
	return out
}

func (in *MemcachedList) DeepCopyObject() runtime.Object {
	out := new(MemcachedList)
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = deepCopyItems(in.Items, (*Memcached).DeepCopyInto)
	return out
}

// logLine prints one JSON log line in op-gen's format, for the fault suite to read.
func logLine(msg string) {
	b, _ := json.Marshal(map[string]string{
		"ts": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), "level": "info", "msg": msg,
	})
	fmt.Fprintln(os.Stderr, string(b))
}

type memcachedReconciler struct {
	client.Client
	scheme   *runtime.Scheme
	recorder record.EventRecorder
}

func (r *memcachedReconciler) desired(m *Memcached) (*appsv1.Deployment, error) {
	labels := map[string]string{
		"app.kubernetes.io/name":       "memcached",
		"app.kubernetes.io/instance":   m.Name,
		"app.kubernetes.io/managed-by": fieldManager,
	}
	replicas := int32(1)
	if m.Spec.Size != nil {
		replicas = *m.Spec.Size
	}
	nonRoot := true
	noEscalation := false
	user := int64(65532)
	dep := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   &nonRoot,
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:  "memcached",
						Image: m.Spec.Image,
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: &noEscalation,
							RunAsUser:                &user,
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
				},
			},
		},
	}
	if err := ctrl.SetControllerReference(m, dep, r.scheme); err != nil {
		return nil, err
	}
	return dep, nil
}

// reportFailure sets Ready=False with reason and message and records a Warning event.
func (r *memcachedReconciler) reportFailure(ctx context.Context, m *Memcached, reason, message string) error {
	r.recorder.Event(m, corev1.EventTypeWarning, reason, message)
	if meta.SetStatusCondition(&m.Status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionFalse, Reason: reason, Message: message,
		ObservedGeneration: m.Generation,
	}) {
		return r.Status().Update(ctx, m)
	}
	return nil
}

func (r *memcachedReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var m Memcached
	if err := r.Get(ctx, req.NamespacedName, &m); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !m.DeletionTimestamp.IsZero() {
		if controllerutil.RemoveFinalizer(&m, memcachedFinalizer) {
			return ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, &m))
		}
		return ctrl.Result{}, nil
	}
	if controllerutil.AddFinalizer(&m, memcachedFinalizer) {
		return ctrl.Result{}, r.Update(ctx, &m)
	}

	dep, err := r.desired(&m)
	if err != nil {
		return ctrl.Result{}, err
	}
	var existing appsv1.Deployment
	err = r.Get(ctx, types.NamespacedName{Namespace: m.Namespace, Name: m.Name}, &existing)
	if err == nil {
		if ref := metav1.GetControllerOf(&existing); ref == nil || ref.UID != m.UID {
			msg := fmt.Sprintf("Deployment %s/%s exists and is not controlled by this Memcached; it is left alone", m.Namespace, m.Name)
			return ctrl.Result{RequeueAfter: time.Minute}, r.reportFailure(ctx, &m, "DeploymentNotOwned", msg)
		}
	} else if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	if err := r.Patch(ctx, dep, client.Apply, client.ForceOwnership, client.FieldOwner(fieldManager)); err != nil {
		if apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err) {
			reason := "Deployment" + string(apierrors.ReasonForError(err))
			return ctrl.Result{RequeueAfter: time.Minute}, r.reportFailure(ctx, &m, reason, err.Error())
		}
		return ctrl.Result{}, err
	}

	wanted := int32(1)
	if m.Spec.Size != nil {
		wanted = *m.Spec.Size
	}
	ready := metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "Reconciled", ObservedGeneration: m.Generation,
		Message: fmt.Sprintf("Deployment %s applied: %d/%d replicas ready", dep.Name, dep.Status.ReadyReplicas, wanted),
	}
	previous := meta.FindStatusCondition(m.Status.Conditions, "Ready")
	changed := meta.SetStatusCondition(&m.Status.Conditions, ready)
	if !changed && m.Status.ReadyReplicas == dep.Status.ReadyReplicas {
		return ctrl.Result{}, nil
	}
	m.Status.ReadyReplicas = dep.Status.ReadyReplicas
	if err := r.Status().Update(ctx, &m); err != nil {
		return ctrl.Result{}, err
	}
	if previous == nil || previous.Status != ready.Status || previous.Reason != ready.Reason {
		r.recorder.Event(&m, corev1.EventTypeNormal, ready.Reason, ready.Message)
	}
	return ctrl.Result{}, nil
}

// runMemcached is `op-gen-bench-go-operator memcached [flags]`: the scaffold's flags, same meaning.
func runMemcached(args []string) {
	fs := flag.NewFlagSet("memcached", flag.ExitOnError)
	metricsAddr := fs.String("metrics-bind-address", "0", "")
	_ = fs.Bool("metrics-secure", false, "ignored: plain HTTP")
	probeAddr := fs.String("health-probe-bind-address", "0", "")
	watchNamespace := fs.String("watch-namespace", "", "")
	_ = fs.String("log-level", "info", "ignored")
	leaderElect := fs.Bool("leader-elect", false, "")
	_ = fs.Parse(args)
	ctrl.SetLogger(zap.New(zap.UseDevMode(false), zap.WriteTo(os.Stderr)))

	scheme := newScheme(memcachedGV, &Memcached{}, &MemcachedList{})

	namespace := os.Getenv("POD_NAMESPACE")
	if namespace == "" {
		namespace = "default"
	}
	opts := ctrl.Options{
		Scheme:                        scheme,
		Metrics:                       metricsserver.Options{BindAddress: *metricsAddr},
		HealthProbeBindAddress:        *probeAddr,
		LeaderElection:                *leaderElect,
		LeaderElectionID:              "memcached-operator.example.com",
		LeaderElectionNamespace:       namespace,
		LeaderElectionReleaseOnCancel: true,
	}
	if *watchNamespace != "" {
		opts.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{*watchNamespace: {}}}
	}
	mgr := newManager(ctrl.GetConfigOrDie(), opts)
	completeController(mgr, &Memcached{}, controller.Options{}, &memcachedReconciler{
		Client: mgr.GetClient(), scheme: scheme, recorder: mgr.GetEventRecorderFor(fieldManager),
	})
	// The moments the fault suite watches, in op-gen's log format.
	_ = mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		if mgr.GetCache().WaitForCacheSync(ctx) {
			logLine("manager started")
		}
		<-ctx.Done()
		return nil
	}))
	if *leaderElect {
		logLine("waiting to acquire the leader lease")
		go func() {
			<-mgr.Elected()
			logLine("acquired the leader lease")
		}()
	}
	startManager(mgr)
	if *leaderElect {
		logLine("released the leader lease")
	}
	logLine("manager stopped")
}

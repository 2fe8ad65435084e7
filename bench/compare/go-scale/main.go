// The controller-runtime side of bench/compare/scale-compare.ts: the same work as
// bench/compare/op-gen-scale.mjs, mode by mode. Prints JSON lines {"event": ..., "at": unix ms, ...}
// on stdout. Modes:
//
//	lookup:   BenchApps (parents) and ConfigMaps they own (children) in --namespace; each reconcile
//	          reads its parent from the cache, lists its children through a field index on the
//	          controller owner's uid (IndexField + MatchingFields) and writes a Ready condition
//	          naming --run and the child count. "done" once --parents distinct parents are written.
//	sync:     a controller of the namespace's ConfigMaps; "synced" once its cache is synced.
//	backlog:  a controller of the namespace's ConfigMaps (priority queue on); each reconcile reads the
//	          object from the cache and GETs it from the API server; "edited" when it reconciles an
//	          object carrying the label edited=--run.
//	failover: a leader-elected controller of the namespace's ConfigMaps (--warmup: EnableWarmup);
//	          "standby", "warm" (warmup: cache synced), "leader", "first-reconcile".
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"op-gen.local/bench/benchapp"
)

// The BenchApp kind, shared with the other controller-runtime bench operators (go-benchapp).
var groupVersion = benchapp.GroupVersion

type BenchApp = benchapp.BenchApp
type BenchAppList = benchapp.BenchAppList

var outMu sync.Mutex

// emit prints one event line with the wall clock (Unix ms) and the process's CPU seconds so far.
func emit(event string, fields map[string]any) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	line := map[string]any{
		"event": event,
		"at":    time.Now().UnixMilli(),
		"cpu":   float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9,
	}
	for k, v := range fields {
		line[k] = v
	}
	b, _ := json.Marshal(line)
	outMu.Lock()
	os.Stdout.Write(append(b, '\n'))
	outMu.Unlock()
}

func exitOnError(err error) {
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}

const ownerIndex = "metadata.ownerReferences.controller.uid"

type lookupReconciler struct {
	client.Client
	run      string
	parents  int64
	written  sync.Map
	count    atomic.Int64
	lookupNs atomic.Int64
	lookups  atomic.Int64
	children atomic.Int64
}

func (r *lookupReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app BenchApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var children corev1.ConfigMapList
	t := time.Now()
	if err := r.List(ctx, &children, client.InNamespace(app.Namespace),
		client.MatchingFields{ownerIndex: string(app.UID)}); err != nil {
		return ctrl.Result{}, err
	}
	r.lookupNs.Add(time.Since(t).Nanoseconds())
	r.lookups.Add(1)
	message := fmt.Sprintf("%s: %d children", r.run, len(children.Items))
	if c := meta.FindStatusCondition(app.Status.Conditions, "Ready"); c == nil || c.Message != message {
		meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{
			Type: "Ready", Status: metav1.ConditionTrue, Reason: "ChildrenCounted",
			Message: message, ObservedGeneration: app.Generation,
		})
		if err := r.Status().Update(ctx, &app); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	if _, seen := r.written.LoadOrStore(req.NamespacedName, true); !seen {
		r.children.Add(int64(len(children.Items)))
		if r.count.Add(1) == r.parents {
			emit("done", map[string]any{
				"lookups": r.lookups.Load(), "lookupNs": r.lookupNs.Load(), "children": r.children.Load(),
			})
		}
	}
	return ctrl.Result{}, nil
}

type configMapReconciler struct {
	client.Client
	reader   client.Reader
	run      string
	remote   bool
	first    atomic.Bool
	reported atomic.Bool
}

func (r *configMapReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if r.first.CompareAndSwap(false, true) {
		emit("first-reconcile", nil)
	}
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.remote {
		var fresh corev1.ConfigMap
		if err := r.reader.Get(ctx, req.NamespacedName, &fresh); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	if r.run != "" && cm.Labels["edited"] == r.run && r.reported.CompareAndSwap(false, true) {
		emit("edited", map[string]any{"name": cm.Name})
	}
	return ctrl.Result{}, nil
}

func main() {
	mode := flag.String("mode", "lookup", "lookup | sync | backlog | failover")
	namespace := flag.String("namespace", "default", "the one namespace cached")
	run := flag.String("run", "", "this run's id (lookup: written into the status; backlog: the edit's label)")
	parents := flag.Int64("parents", 0, "lookup: parents to write before \"done\"")
	workers := flag.Int("workers", 1, "MaxConcurrentReconciles")
	warmup := flag.Bool("warmup", false, "failover: EnableWarmup")
	stripManagedFields := flag.Bool("strip-managed-fields", false, "cache without metadata.managedFields (TransformStripManagedFields), as op-gen's cache does by default")
	// controller-runtime v0.22's priority queue walks its whole tree on every add while no worker
	// waits (fixed in later releases), so its CPU per reconcile grows with the queue; false gives
	// v0.22's default queue (client-go's workqueue) for the lookup case.
	priorityQueue := flag.Bool("priority-queue", true, "UsePriorityQueue")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseDevMode(false)))

	scheme := benchapp.NewScheme()

	cfg := ctrl.GetConfigOrDie()
	// As the op-gen side: no client-side rate limit.
	cfg.QPS = -1
	cfg.Burst = 1000
	opts := ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}},
	}
	if *stripManagedFields {
		opts.Cache.DefaultTransform = cache.TransformStripManagedFields()
	}
	if *mode == "failover" {
		lease := 4 * time.Second
		renew := 3 * time.Second
		retry := 250 * time.Millisecond
		opts.LeaderElection = true
		opts.LeaderElectionID = "failover-bench"
		opts.LeaderElectionNamespace = *namespace
		opts.LeaseDuration = &lease
		opts.RenewDeadline = &renew
		opts.RetryPeriod = &retry
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	exitOnError(err)
	ctx := ctrl.SetupSignalHandler()
	copts := controller.Options{MaxConcurrentReconciles: *workers, UsePriorityQueue: ptr.To(*priorityQueue)}

	switch *mode {
	case "lookup":
		exitOnError(mgr.GetFieldIndexer().IndexField(ctx, &corev1.ConfigMap{}, ownerIndex,
			func(o client.Object) []string {
				if ref := metav1.GetControllerOf(o); ref != nil {
					return []string{string(ref.UID)}
				}
				return nil
			}))
		exitOnError(ctrl.NewControllerManagedBy(mgr).
			For(&BenchApp{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
			Owns(&corev1.ConfigMap{}).
			WithOptions(copts).
			Complete(&lookupReconciler{Client: mgr.GetClient(), run: *run, parents: *parents}))
	case "sync", "backlog", "failover":
		if *mode == "failover" {
			copts.EnableWarmup = ptr.To(*warmup)
		}
		r := &configMapReconciler{Client: mgr.GetClient(), reader: mgr.GetAPIReader(), run: *run,
			remote: *mode == "backlog"}
		exitOnError(ctrl.NewControllerManagedBy(mgr).
			For(&corev1.ConfigMap{}).
			WithOptions(copts).
			Complete(reconcile.Reconciler(r)))
	default:
		exitOnError(fmt.Errorf("unknown --mode %q", *mode))
	}

	emit("started", nil)
	go func() {
		if *mode == "failover" {
			emit("standby", nil)
			if *warmup {
				// The controller's warmup created the informer; waiting on it adds no informer.
				for {
					inf, err := mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{}, cache.BlockUntilSynced(false))
					if err == nil && inf.HasSynced() {
						emit("warm", nil)
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			<-mgr.Elected()
			emit("leader", nil)
			return
		}
		if mgr.GetCache().WaitForCacheSync(ctx) {
			// WaitForCacheSync returns at once before the first informer exists: wait for the kind's.
			var obj client.Object = &corev1.ConfigMap{}
			if *mode == "lookup" {
				obj = &BenchApp{}
			}
			for {
				inf, err := mgr.GetCache().GetInformer(ctx, obj, cache.BlockUntilSynced(false))
				if err == nil && inf.HasSynced() {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			emit("synced", nil)
		}
	}()
	exitOnError(mgr.Start(ctx))
}

// The controller-runtime side of bench/priority.ts ("restart under backlog"): N ConfigMaps served by
// an in-process HTTP server (list, watch, get); a controller (controller-runtime v0.22.5,
// EnqueueRequestForObject) whose reconcile reads the object from the cache and GETs it from the
// server; editAfterMs after the cache synced one object is edited (a MODIFIED watch event with a new
// resourceVersion) and the time from the edit to the reconcile that reads it is measured, with
// UsePriorityQueue on or off. Prints one JSON line as the op-gen child does. Built and run only by
// bench/priority.ts --controller-runtime (a package of the go-lookup module, to reuse its go.sum).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

func main() {
	objects := flag.Int("objects", 20000, "")
	edit := flag.String("edit", "last", "last, middle or first (list order)")
	editAfterMs := flag.Int("edit-after-ms", 200, "after the cache synced")
	workers := flag.Int("workers", 1, "")
	priority := flag.Bool("priority", true, "UsePriorityQueue")
	flag.Parse()
	log.SetLogger(logr.Discard())

	// The same objects as the op-gen side, in its list order (namespace, then name).
	items := make([]corev1.ConfigMap, 0, *objects)
	for ns := 0; ns < 10; ns++ {
		for i := ns; i < *objects; i += 10 {
			items = append(items, corev1.ConfigMap{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("cm-%06d", i), Namespace: fmt.Sprintf("ns-%d", ns),
					UID: "uid", ResourceVersion: "1",
				},
				Data: map[string]string{"i": fmt.Sprint(i)},
			})
		}
	}
	target := len(items) - 1
	if *edit == "first" {
		target = 0
	} else if *edit == "middle" {
		target = len(items) / 2
	}
	var mu sync.Mutex
	byPath := map[string][]byte{}
	for i := range items {
		b, _ := json.Marshal(&items[i])
		byPath["/api/v1/namespaces/"+items[i].Namespace+"/configmaps/"+items[i].Name] = b
	}
	list := corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}, Items: items}
	list.ResourceVersion = "1"
	body, err := json.Marshal(list)
	if err != nil {
		panic(err)
	}
	events := make(chan []byte, 16)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Query().Get("watch") == "true":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			for {
				select {
				case <-r.Context().Done():
					return
				case e := <-events:
					_, _ = w.Write(append(e, '\n'))
					w.(http.Flusher).Flush()
				}
			}
		case strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/"):
			mu.Lock()
			b, ok := byPath[r.URL.Path]
			mu.Unlock()
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			_, _ = w.Write(b)
		default:
			_, _ = w.Write(body)
		}
	}))
	defer server.Close()

	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	cfg := &rest.Config{Host: server.URL, QPS: -1}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		panic(err)
	}
	c, err := cache.New(cfg, cache.Options{Scheme: scheme.Scheme, Mapper: mapper, HTTPClient: httpClient})
	if err != nil {
		panic(err)
	}
	direct, err := client.New(cfg, client.Options{Scheme: scheme.Scheme, Mapper: mapper, HTTPClient: httpClient})
	if err != nil {
		panic(err)
	}

	var editedAt atomic.Int64
	var reconciles, editReconciles atomic.Int64
	sawEdit := make(chan float64, 1)
	drained := make(chan struct{})
	var once, drainOnce sync.Once
	seen := map[reconcile.Request]bool{}
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		started := time.Now()
		n := reconciles.Add(1)
		var cm corev1.ConfigMap
		if err := c.Get(ctx, req.NamespacedName, &cm); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		if at := editedAt.Load(); at > 0 && cm.Labels["edited"] == "yes" {
			once.Do(func() {
				editReconciles.Store(n)
				sawEdit <- float64(started.UnixNano()-at) / 1e6
			})
		}
		var live corev1.ConfigMap
		if err := direct.Get(ctx, req.NamespacedName, &live); err != nil {
			return reconcile.Result{}, err
		}
		mu.Lock()
		seen[req] = true
		all := len(seen) == *objects
		mu.Unlock()
		if all {
			drainOnce.Do(func() { close(drained) })
		}
		return reconcile.Result{}, nil
	})
	ctrl, err := controller.NewUnmanaged("cms", controller.Options{
		Reconciler: r, UsePriorityQueue: ptr.To(*priority), MaxConcurrentReconciles: *workers,
		SkipNameValidation: ptr.To(true),
	})
	if err != nil {
		panic(err)
	}
	if err := ctrl.Watch(source.Kind(c, client.Object(&corev1.ConfigMap{}), &handler.EnqueueRequestForObject{})); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	go func() { _ = c.Start(ctx) }()
	go func() { _ = ctrl.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		panic("cache did not sync")
	}
	time.Sleep(time.Duration(*editAfterMs) * time.Millisecond)
	before := reconciles.Load()
	edited := items[target].DeepCopy()
	edited.ResourceVersion = "2"
	edited.Labels = map[string]string{"edited": "yes"}
	eb, _ := json.Marshal(edited)
	mu.Lock()
	byPath["/api/v1/namespaces/"+edited.Namespace+"/configmaps/"+edited.Name] = eb
	mu.Unlock()
	ev, _ := json.Marshal(map[string]any{"type": "MODIFIED", "object": json.RawMessage(eb)})
	editedAt.Store(time.Now().UnixNano())
	events <- ev
	editMs := <-sawEdit
	<-drained
	backlogMs := float64(time.Since(start).Microseconds()) / 1000
	out, _ := json.Marshal(map[string]any{
		"editToReconcileMs": editMs, "backlogMs": backlogMs, "reconcilesBefore": editReconciles.Load() - before - 1,
	})
	fmt.Println(string(out))
	os.Exit(0)
}

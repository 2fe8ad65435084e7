// The controller-runtime side of bench/lookup.ts: the same store (ConfigMaps labelled with their
// parent) in controller-runtime's informer cache, filled from an in-process HTTP server that answers
// the list and holds the watch open, then the same lookups through cache.List: by namespace and
// label (controller-runtime's namespace index, then a label filter), or by namespace and a field
// index registered with IndexField. Prints one JSON line: the CPU time of the lookups alone
// (getrusage), as the op-gen child does. Built and run only by bench/lookup.ts.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func cpuMs() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

func main() {
	namespaces := flag.Int("namespaces", 500, "")
	parents := flag.Int("parents", 10, "parents per namespace")
	children := flag.Int("children", 5, "")
	lookups := flag.Int("lookups", 5000, "")
	mode := flag.String("mode", "label", "label or field")
	flag.Parse()

	list := corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
	list.ResourceVersion = "1"
	for n := 0; n < *namespaces; n++ {
		for p := 0; p < *parents; p++ {
			for c := 0; c < *children; c++ {
				list.Items = append(list.Items, corev1.ConfigMap{
					TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
					ObjectMeta: metav1.ObjectMeta{
						Name:            fmt.Sprintf("p%d-c%d", p, c),
						Namespace:       fmt.Sprintf("ns-%d", n),
						UID:             "uid",
						ResourceVersion: "1",
						Labels:          map[string]string{"app": "bench", "parent": fmt.Sprintf("p%d", p)},
					},
				})
			}
		}
	}
	body, err := json.Marshal(list)
	if err != nil {
		panic(err)
	}
	list.Items = nil
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "true" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		_, _ = w.Write(body)
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if *mode == "field" {
		err = c.IndexField(ctx, &corev1.ConfigMap{}, "parent", func(o client.Object) []string {
			return []string{o.GetLabels()["parent"]}
		})
		if err != nil {
			panic(err)
		}
	}
	if _, err := c.GetInformer(ctx, &corev1.ConfigMap{}); err != nil {
		panic(err)
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		panic("cache did not sync")
	}
	body = nil
	runtime.GC()

	answers := 0
	cpu0 := cpuMs()
	t0 := time.Now()
	for i := 0; i < *lookups; i++ {
		ns := fmt.Sprintf("ns-%d", i%*namespaces)
		parent := fmt.Sprintf("p%d", (i*7)%*parents)
		var out corev1.ConfigMapList
		opts := []client.ListOption{client.InNamespace(ns)}
		if *mode == "field" {
			opts = append(opts, client.MatchingFields{"parent": parent})
		} else {
			opts = append(opts, client.MatchingLabels{"parent": parent})
		}
		if err := c.List(ctx, &out, opts...); err != nil {
			panic(err)
		}
		answers += len(out.Items)
	}
	wallMs := float64(time.Since(t0).Microseconds()) / 1000
	cpu := cpuMs() - cpu0
	if answers != *lookups**children {
		fmt.Fprintf(os.Stderr, "wrong answers: %d\n", answers)
		os.Exit(1)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heap := float64(ms.HeapAlloc) / 1024 / 1024
	out, _ := json.Marshal(map[string]any{
		"cpuMs": cpu, "wallMs": wallMs, "cached": *namespaces * *parents * *children, "answers": answers,
		"heapSyncedMb": heap, "heapAfterLookupsMb": heap,
	})
	fmt.Println(string(out))
}

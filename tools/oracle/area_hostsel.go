package main

import (
	"context"
	"encoding/json"
	"errors"
	"sort"

	"github.com/go-logr/logr"
	bmov1alpha1 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
	infrav1 "github.com/metal3-io/cluster-api-provider-metal3/api/v1beta2"
	"github.com/metal3-io/cluster-api-provider-metal3/baremetal"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

type hostselCase struct {
	Metal3Machine infrav1.Metal3Machine       `json:"metal3Machine"`
	Machine       clusterv1.Machine           `json:"machine"`
	MachineSets   []clusterv1.MachineSet      `json:"machineSets"`
	Hosts         []bmov1alpha1.BareMetalHost `json:"hosts"`
}

// The hosts chooseHost returned one after the other (each removed before asking again) with the
// condition reason for each, and
// how the run ended: "none" (nil host), "wait" (a transient error: node-reuse hosts not ready),
// "terminal" (an error that would fail the machine) or "error" (any other error, which the
// controller retries: an invalid hostSelector, say), with upstream's message.
type hostselAnswer struct {
	Chosen  []string `json:"chosen"`
	Reasons []string `json:"reasons"`
	End     string   `json:"end"`
	Message string   `json:"message,omitempty"`
}

func hostselScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, bmov1alpha1.AddToScheme, infrav1.AddToScheme, clusterv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	return scheme
}

// The API server lists in key order (namespace, then name); the fake client's tracker lists in
// map order. Sorting makes chooseHost's node-reuse loop, which depends on the order, repeatable.
func sortedList(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.List(ctx, list, opts...); err != nil {
		return err
	}
	if hosts, ok := list.(*bmov1alpha1.BareMetalHostList); ok {
		sort.Slice(hosts.Items, func(i, j int) bool {
			a, b := hosts.Items[i], hosts.Items[j]
			return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
		})
	}
	return nil
}

func chooseOnce(scheme *runtime.Scheme, c *hostselCase, hosts []bmov1alpha1.BareMetalHost) (*bmov1alpha1.BareMetalHost, string, error) {
	objects := []client.Object{}
	for i := range hosts {
		objects = append(objects, &hosts[i])
	}
	for i := range c.MachineSets {
		objects = append(objects, &c.MachineSets[i])
	}
	cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objects...).
		WithInterceptorFuncs(interceptor.Funcs{List: sortedList}).Build()
	m3m := c.Metal3Machine.DeepCopy()
	machine := c.Machine.DeepCopy()
	manager, err := baremetal.NewMachineManager(cl, nil, nil, machine, m3m, logr.Discard())
	if err != nil {
		return nil, "", err
	}
	return baremetal.OracleChooseHostWithReason(context.Background(), manager)
}

// hostsel: the BareMetalHosts CAPM3's chooseHost would associate with a Metal3Machine. pickHost
// chooses at random among the eligible, so the area asks again without the chosen host until
// none is left: the answer lists every host upstream could choose, in tiers (the host already
// consumed by this machine first, then node-reuse hosts, then failure-domain hosts, then the rest).
func init() {
	scheme := hostselScheme()
	register("hostsel", func(input json.RawMessage) (any, error) {
		var c hostselCase
		if err := json.Unmarshal(input, &c); err != nil {
			return nil, err
		}
		// The Metal3Machine controller copies the Machine's failure domain onto the Metal3Machine
		// (empty included) before the manager runs.
		c.Metal3Machine.Spec.FailureDomain = c.Machine.Spec.FailureDomain
		remaining := append([]bmov1alpha1.BareMetalHost{}, c.Hosts...)
		answer := hostselAnswer{Chosen: []string{}, Reasons: []string{}}
		for {
			host, reason, err := chooseOnce(scheme, &c, remaining)
			if err != nil {
				answer.End, answer.Message = "error", err.Error()
				var reconcileErr baremetal.ReconcileError
				if errors.As(err, &reconcileErr) && reconcileErr.IsTransient() {
					answer.End = "wait"
				} else if errors.As(err, &reconcileErr) && reconcileErr.IsTerminal() {
					answer.End = "terminal"
				}
				return answer, nil
			}
			if host == nil {
				answer.End = "none"
				return answer, nil
			}
			answer.Chosen = append(answer.Chosen, host.Name)
			answer.Reasons = append(answer.Reasons, reason)
			kept := remaining[:0]
			for _, h := range remaining {
				if h.Namespace != host.Namespace || h.Name != host.Name {
					kept = append(kept, h)
				}
			}
			if len(kept) == len(remaining) {
				return nil, errors.New("chooseHost returned a host that was not offered: " + host.Name)
			}
			remaining = kept
		}
	})
}

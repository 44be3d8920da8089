package main

// ipam: ip-address-manager's IPPoolManager (ipam.NewIPPoolManager, UpdateAddresses) against a
// controller-runtime fake client, for one pool and a sequence of steps (claims created in
// batches, deleted, released by a foreign finalizer; the pool's spec replaced, the pool deleted).
// After every step the pool is reconciled
// until a pass returns no error (upstream's controller requeues on every error; a claim that got
// an error message is skipped from then on, so each retry makes progress), at most a bounded
// number of passes (a transient error such as AlreadyExists repeats for ever upstream). Then the
// step's snapshot records every claim's outcome and the pool's status.indexes, and every claim
// left without an address is deleted (what a user does: upstream never retries a failed claim).

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/go-logr/logr"
	ipamv1 "github.com/metal3-io/ip-address-manager/api/v1alpha1"
	"github.com/metal3-io/ip-address-manager/ipam"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	capipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

const (
	ipamNamespace      = "default"
	ipamPoolName       = "pool1"
	ipamForeignFinal   = "metal3data.infrastructure.cluster.x-k8s.io"
	ipamMaxExtraPasses = 4
)

type ipamClaimInput struct {
	Name      string `json:"name"`
	Kind      string `json:"kind,omitempty"` // "" or "IPClaim"; "IPAddressClaim" for Cluster API
	IPAddress string `json:"ipAddress,omitempty"`
}

type ipamStep struct {
	Create  []ipamClaimInput `json:"create,omitempty"`
	Delete  string           `json:"delete,omitempty"`
	Kind    string           `json:"kind,omitempty"`
	Foreign bool             `json:"foreign,omitempty"`
	Release string           `json:"release,omitempty"`
	// DeletePool starts deleting the pool (it keeps upstream's finalizer while addresses are in use).
	DeletePool bool `json:"deletePool,omitempty"`
	// UpdatePool replaces the pool's spec (namePrefix unchanged); the status stays.
	UpdatePool *ipamv1.IPPoolSpec `json:"updatePool,omitempty"`
}

type ipamCase struct {
	Pool  ipamv1.IPPoolSpec `json:"pool"`
	Steps []ipamStep        `json:"steps"`
	// KeepFailed leaves failed claims in place (for the pinned case showing that upstream never
	// retries them); by default they are deleted after each step's snapshot.
	KeepFailed bool `json:"keepFailed,omitempty"`
}

// What one claim ended with: an address (with the IPAddress's prefix, gateway, DNS servers), an
// error message (IPClaim status.errorMessage, or the IPAddressClaim Ready condition's message), or
// nothing yet (pending, with the last error UpdateAddresses returned).
type ipamOutcome struct {
	// Name is the IPAddress a metal3 claim's status names (Cluster API claims: not reported, the
	// CAPI IPAddress is named after the claim in Ironhook, a documented deviation).
	Name       string   `json:"name,omitempty"`
	Address    string   `json:"address,omitempty"`
	Prefix     *int     `json:"prefix,omitempty"`
	Gateway    *string  `json:"gateway,omitempty"`
	DNSServers []string `json:"dnsServers,omitempty"`
	Error      string   `json:"error,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Pending    string   `json:"pending,omitempty"`
}

type ipamSnapshot struct {
	Claims  map[string]ipamOutcome `json:"claims"`
	Indexes map[string]string      `json:"indexes"`
}

type ipamRun struct {
	ctx     context.Context
	client  client.Client
	pool    *ipamv1.IPPool
	lastErr string
	clock   int64
}

func ipamScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := ipamv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := capipamv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return scheme, nil
}

var ipamSchemeOnce = struct {
	scheme *runtime.Scheme
	err    error
	done   bool
}{}

func newIPAMRun(spec ipamv1.IPPoolSpec) (*ipamRun, error) {
	if !ipamSchemeOnce.done {
		ipamSchemeOnce.scheme, ipamSchemeOnce.err = ipamScheme()
		ipamSchemeOnce.done = true
	}
	scheme, err := ipamSchemeOnce.scheme, ipamSchemeOnce.err
	if err != nil {
		return nil, err
	}
	// A plain object tracker: the default one also tracks managed fields (server-side apply,
	// which nothing here uses) and builds client-go's whole scheme per client, several times the
	// cost of the allocation itself.
	tracker := clienttesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())
	c := fake.NewClientBuilder().
		WithScheme(scheme).
		WithObjectTracker(tracker).
		WithStatusSubresource(&ipamv1.IPClaim{}, &capipamv1.IPAddressClaim{}, &ipamv1.IPPool{}).
		Build()
	created := metav1.Unix(1700000000, 0)
	pool := &ipamv1.IPPool{
		TypeMeta:   metav1.TypeMeta{APIVersion: ipamv1.GroupVersion.String(), Kind: "IPPool"},
		ObjectMeta: metav1.ObjectMeta{Name: ipamPoolName, Namespace: ipamNamespace, UID: "uid-pool", CreationTimestamp: created},
		Spec:       spec,
	}
	return &ipamRun{ctx: context.Background(), client: c, pool: pool, clock: 1700000000}, nil
}

func isCapi(kind string) bool { return kind == "IPAddressClaim" }

func (r *ipamRun) create(in ipamClaimInput) error {
	r.clock++
	meta := metav1.ObjectMeta{Name: in.Name, Namespace: ipamNamespace, UID: types.UID("uid-" + in.Name), CreationTimestamp: metav1.Unix(r.clock, 0)}
	if in.IPAddress != "" {
		meta.Annotations = map[string]string{ipam.IPAddressAnnotation: in.IPAddress}
	}
	if isCapi(in.Kind) {
		return r.client.Create(r.ctx, &capipamv1.IPAddressClaim{
			TypeMeta:   metav1.TypeMeta{APIVersion: capipamv1.GroupVersion.String(), Kind: "IPAddressClaim"},
			ObjectMeta: meta,
			Spec:       capipamv1.IPAddressClaimSpec{PoolRef: capipamv1.IPPoolReference{APIGroup: "ipam.metal3.io", Kind: "IPPool", Name: ipamPoolName}},
		})
	}
	return r.client.Create(r.ctx, &ipamv1.IPClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: ipamv1.GroupVersion.String(), Kind: "IPClaim"},
		ObjectMeta: meta,
		Spec:       ipamv1.IPClaimSpec{Pool: corev1.ObjectReference{Name: ipamPoolName, Namespace: ipamNamespace}},
	})
}

func (r *ipamRun) claimObject(kind string) client.Object {
	if isCapi(kind) {
		return &capipamv1.IPAddressClaim{}
	}
	return &ipamv1.IPClaim{}
}

// remove starts deleting a claim; with foreign, a CAPM3-like finalizer keeps it (and its address).
func (r *ipamRun) remove(name, kind string, foreign bool) error {
	obj := r.claimObject(kind)
	if err := r.client.Get(r.ctx, client.ObjectKey{Namespace: ipamNamespace, Name: name}, obj); err != nil {
		// Gone already (deleted after its error): nothing to do, as on Ironhook's side.
		return client.IgnoreNotFound(err)
	}
	if foreign {
		obj.SetFinalizers(append(obj.GetFinalizers(), ipamForeignFinal))
		if err := r.client.Update(r.ctx, obj); err != nil {
			return err
		}
	}
	return r.client.Delete(r.ctx, obj)
}

// release drops the foreign finalizer of a deleting claim.
func (r *ipamRun) release(name, kind string) error {
	obj := r.claimObject(kind)
	if err := r.client.Get(r.ctx, client.ObjectKey{Namespace: ipamNamespace, Name: name}, obj); err != nil {
		return client.IgnoreNotFound(err)
	}
	kept := []string{}
	for _, f := range obj.GetFinalizers() {
		if f != ipamForeignFinal {
			kept = append(kept, f)
		}
	}
	obj.SetFinalizers(kept)
	return r.client.Update(r.ctx, obj)
}

// reconcile runs UpdateAddresses until a pass succeeds (upstream's requeue), with a bound.
func (r *ipamRun) reconcile(claims int) error {
	r.lastErr = ""
	for pass := 0; pass < claims+ipamMaxExtraPasses; pass++ {
		manager, err := ipam.NewIPPoolManager(r.client, r.pool, logr.Discard())
		if err != nil {
			return err
		}
		if _, err := manager.UpdateAddresses(r.ctx); err != nil {
			r.lastErr = err.Error()
			continue
		}
		r.lastErr = ""
		return nil
	}
	return nil
}

func (r *ipamRun) metal3Outcome(claim *ipamv1.IPClaim) (ipamOutcome, error) {
	if claim.Status.Address != nil {
		address := &ipamv1.IPAddress{}
		key := client.ObjectKey{Namespace: ipamNamespace, Name: claim.Status.Address.Name}
		if err := r.client.Get(r.ctx, key, address); err != nil {
			// An IPClaim that shares an IPAddressClaim's name is pointed at that claim's (Cluster
			// API) IPAddress: upstream keys status.indexes by claim name only.
			return ipamOutcome{Pending: "address " + claim.Status.Address.Name + " is not a metal3 IPAddress"}, nil
		}
		prefix := address.Spec.Prefix
		out := ipamOutcome{Name: address.Name, Address: string(address.Spec.Address), Prefix: &prefix}
		if address.Spec.Gateway != nil {
			gateway := string(*address.Spec.Gateway)
			out.Gateway = &gateway
		}
		for _, dns := range address.Spec.DNSServers {
			out.DNSServers = append(out.DNSServers, string(dns))
		}
		return out, nil
	}
	if claim.Status.ErrorMessage != nil {
		return ipamOutcome{Error: *claim.Status.ErrorMessage}, nil
	}
	return ipamOutcome{Pending: r.lastErr}, nil
}

func (r *ipamRun) capiOutcome(claim *capipamv1.IPAddressClaim) (ipamOutcome, error) {
	if claim.Status.AddressRef.Name != "" {
		address := &capipamv1.IPAddress{}
		key := client.ObjectKey{Namespace: ipamNamespace, Name: claim.Status.AddressRef.Name}
		if err := r.client.Get(r.ctx, key, address); err != nil {
			// A Cluster API claim that shares a metal3 claim's name is pointed at that claim's
			// (metal3) IPAddress: upstream keys status.indexes by claim name only.
			return ipamOutcome{Pending: "addressRef " + claim.Status.AddressRef.Name + " is not a Cluster API IPAddress"}, nil
		}
		prefix := 0
		if address.Spec.Prefix != nil {
			prefix = int(*address.Spec.Prefix)
		}
		out := ipamOutcome{Address: address.Spec.Address, Prefix: &prefix}
		if address.Spec.Gateway != "" {
			gateway := address.Spec.Gateway
			out.Gateway = &gateway
		}
		return out, nil
	}
	if len(claim.Status.Conditions) > 0 && claim.Status.Conditions[0].Status == metav1.ConditionFalse {
		return ipamOutcome{Error: claim.Status.Conditions[0].Message, Reason: claim.Status.Conditions[0].Reason}, nil
	}
	return ipamOutcome{Pending: r.lastErr}, nil
}

func (r *ipamRun) snapshot() (ipamSnapshot, []ipamClaimInput, error) {
	snap := ipamSnapshot{Claims: map[string]ipamOutcome{}, Indexes: map[string]string{}}
	failed := []ipamClaimInput{}
	metal3 := ipamv1.IPClaimList{}
	if err := r.client.List(r.ctx, &metal3, client.InNamespace(ipamNamespace)); err != nil {
		return snap, nil, err
	}
	for i := range metal3.Items {
		out, err := r.metal3Outcome(&metal3.Items[i])
		if err != nil {
			return snap, nil, err
		}
		snap.Claims["IPClaim/"+metal3.Items[i].Name] = out
		if out.Address == "" && metal3.Items[i].DeletionTimestamp.IsZero() {
			failed = append(failed, ipamClaimInput{Name: metal3.Items[i].Name})
		}
	}
	capi := capipamv1.IPAddressClaimList{}
	if err := r.client.List(r.ctx, &capi, client.InNamespace(ipamNamespace)); err != nil {
		return snap, nil, err
	}
	for i := range capi.Items {
		out, err := r.capiOutcome(&capi.Items[i])
		if err != nil {
			return snap, nil, err
		}
		snap.Claims["IPAddressClaim/"+capi.Items[i].Name] = out
		if out.Address == "" && capi.Items[i].DeletionTimestamp.IsZero() {
			failed = append(failed, ipamClaimInput{Name: capi.Items[i].Name, Kind: "IPAddressClaim"})
		}
	}
	for name, address := range r.pool.Status.Allocations {
		snap.Indexes[name] = string(address)
	}
	return snap, failed, nil
}

func (r *ipamRun) apply(step ipamStep) error {
	for _, in := range step.Create {
		if err := r.create(in); err != nil {
			return err
		}
	}
	if step.Delete != "" {
		if err := r.remove(step.Delete, step.Kind, step.Foreign); err != nil {
			return err
		}
	}
	if step.Release != "" {
		return r.release(step.Release, step.Kind)
	}
	if step.UpdatePool != nil {
		r.pool.Spec = *step.UpdatePool
	}
	if step.DeletePool && r.pool.DeletionTimestamp.IsZero() {
		r.clock++
		now := metav1.Unix(r.clock, 0)
		r.pool.DeletionTimestamp = &now
	}
	return nil
}

func (r *ipamRun) claimCount() int {
	metal3 := ipamv1.IPClaimList{}
	capi := capipamv1.IPAddressClaimList{}
	_ = r.client.List(r.ctx, &metal3, client.InNamespace(ipamNamespace))
	_ = r.client.List(r.ctx, &capi, client.InNamespace(ipamNamespace))
	return len(metal3.Items) + len(capi.Items)
}

func runIPAMCase(c ipamCase) ([]ipamSnapshot, error) {
	r, err := newIPAMRun(c.Pool)
	if err != nil {
		return nil, err
	}
	snapshots := make([]ipamSnapshot, 0, len(c.Steps))
	for i, step := range c.Steps {
		if err := r.apply(step); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		if err := r.reconcile(r.claimCount()); err != nil {
			return nil, err
		}
		snap, failed, err := r.snapshot()
		if err != nil {
			return nil, err
		}
		snapshots = append(snapshots, snap)
		if c.KeepFailed {
			continue
		}
		sort.Slice(failed, func(a, b int) bool { return failed[a].Name < failed[b].Name })
		for _, claim := range failed {
			if err := r.remove(claim.Name, claim.Kind, false); err != nil {
				return nil, err
			}
		}
		if len(failed) > 0 {
			if err := r.reconcile(r.claimCount()); err != nil {
				return nil, err
			}
		}
	}
	return snapshots, nil
}

func init() {
	register("ipam", func(input json.RawMessage) (any, error) {
		var c ipamCase
		if err := json.Unmarshal(input, &c); err != nil {
			return nil, err
		}
		return runIPAMCase(c)
	})
}

package main

// Areas for the pools a Metal3DataTemplate references and the claims a Metal3Data makes for
// them (test/differential/metal3data-pools.test.ts):
//
//	metal3data-pools   getReferencedPools for a template and the three objects' annotations
//	metal3data-claims  DataManager.Reconcile (or ReleaseLeases) against a fake API server holding
//	                   the case's objects; the answer is what the store holds afterwards
import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/go-logr/logr"
	bmov1alpha1 "github.com/metal3-io/baremetal-operator/apis/metal3.io/v1alpha1"
	infrav1 "github.com/metal3-io/cluster-api-provider-metal3/api/v1beta2"
	"github.com/metal3-io/cluster-api-provider-metal3/baremetal"
	ipamv1 "github.com/metal3-io/ip-address-manager/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	capipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

type poolsCase struct {
	Spec infrav1.Metal3DataTemplateSpec `json:"spec"`
	// Annotations of the three objects; a missing object is nil (as during release).
	Metal3Machine map[string]string `json:"metal3machine,omitempty"`
	Machine       map[string]string `json:"machine,omitempty"`
	Host          map[string]string `json:"baremetalhost,omitempty"`
	// Whether the objects exist at all (upstream passes nil for all three when releasing).
	Objects bool `json:"objects"`
}

type poolRef struct {
	Name     string `json:"name"`
	APIGroup string `json:"apiGroup"`
	Kind     string `json:"kind"`
}

func sortedRefs(refs map[string]infrav1.IPPoolReference) []poolRef {
	out := make([]poolRef, 0, len(refs))
	for key, ref := range refs {
		if key != ref.Name {
			panic(fmt.Sprintf("pool map key %q differs from its reference's name %q", key, ref.Name))
		}
		out = append(out, poolRef{Name: ref.Name, APIGroup: ref.APIGroup, Kind: ref.Kind})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func referencedPools(input json.RawMessage) (any, error) {
	var c poolsCase
	if err := json.Unmarshal(input, &c); err != nil {
		return nil, err
	}
	template := infrav1.Metal3DataTemplate{Spec: c.Spec}
	if !c.Objects {
		refs, err := baremetal.OracleReferencedPools(template, nil, nil, nil)
		return sortedRefs(refs), err
	}
	m3m := &infrav1.Metal3Machine{ObjectMeta: metav1.ObjectMeta{Annotations: c.Metal3Machine}}
	machine := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Annotations: c.Machine}}
	host := &bmov1alpha1.BareMetalHost{ObjectMeta: metav1.ObjectMeta{Annotations: c.Host}}
	refs, err := baremetal.OracleReferencedPools(template, m3m, machine, host)
	return sortedRefs(refs), err
}

// The claims case: the Metal3Data and every object of the fake API server, as JSON objects
// with apiVersion and kind.
type claimsCase struct {
	Data    json.RawMessage   `json:"data"`
	Objects []json.RawMessage `json:"objects"`
	// Release the data's addresses (the deletion path) instead of reconciling it.
	Release bool `json:"release,omitempty"`
}

type storedClaim struct {
	Kind            string                  `json:"kind"`
	Name            string                  `json:"name"`
	Labels          map[string]string       `json:"labels,omitempty"`
	Finalizers      []string                `json:"finalizers,omitempty"`
	OwnerReferences []metav1.OwnerReference `json:"ownerReferences,omitempty"`
	Deleting        bool                    `json:"deleting,omitempty"`
	Spec            any                     `json:"spec"`
}

type storedSecret struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	Type   string            `json:"type"`
	Data   map[string]string `json:"data"`
}

type claimsAnswer struct {
	Ready        *bool          `json:"ready"`
	ErrorMessage string         `json:"errorMessage"`
	Error        string         `json:"error"`
	Claims       []storedClaim  `json:"claims"`
	Secrets      []storedSecret `json:"secrets"`
}

func oracleScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, infrav1.AddToScheme, ipamv1.AddToScheme, capipamv1.AddToScheme,
		clusterv1.AddToScheme, bmov1alpha1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}

var claimsScheme = oracleScheme()

func decodeObject(raw json.RawMessage) (client.Object, error) {
	decoded, _, err := serializer.NewCodecFactory(claimsScheme).UniversalDeserializer().Decode(raw, nil, nil)
	if err != nil {
		return nil, err
	}
	obj, ok := decoded.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%T is not a client.Object", decoded)
	}
	return obj, nil
}

func claimOf(meta metav1.ObjectMeta, kind string, spec any) storedClaim {
	return storedClaim{
		Kind: kind, Name: meta.Name, Labels: meta.Labels, Finalizers: meta.Finalizers,
		OwnerReferences: meta.OwnerReferences, Deleting: meta.DeletionTimestamp != nil, Spec: spec,
	}
}

func storedClaims(ctx context.Context, cl client.Client) ([]storedClaim, error) {
	out := []storedClaim{}
	var m3 ipamv1.IPClaimList
	if err := cl.List(ctx, &m3); err != nil {
		return nil, err
	}
	for _, claim := range m3.Items {
		out = append(out, claimOf(claim.ObjectMeta, "IPClaim", claim.Spec))
	}
	var capi capipamv1.IPAddressClaimList
	if err := cl.List(ctx, &capi); err != nil {
		return nil, err
	}
	for _, claim := range capi.Items {
		out = append(out, claimOf(claim.ObjectMeta, "IPAddressClaim", claim.Spec))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind+"/"+out[i].Name < out[j].Kind+"/"+out[j].Name })
	return out, nil
}

func storedSecrets(ctx context.Context, cl client.Client) ([]storedSecret, error) {
	var secrets corev1.SecretList
	if err := cl.List(ctx, &secrets); err != nil {
		return nil, err
	}
	out := make([]storedSecret, 0, len(secrets.Items))
	for _, secret := range secrets.Items {
		data := map[string]string{}
		for key, value := range secret.Data {
			data[key] = string(value)
		}
		out = append(out, storedSecret{Name: secret.Name, Labels: secret.Labels, Type: string(secret.Type), Data: data})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func reconcileClaims(input json.RawMessage) (any, error) {
	var c claimsCase
	if err := json.Unmarshal(input, &c); err != nil {
		return nil, err
	}
	decodedData, err := decodeObject(c.Data)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	data, ok := decodedData.(*infrav1.Metal3Data)
	if !ok {
		return nil, errors.New("data is not a Metal3Data")
	}
	objects := []client.Object{data.DeepCopy()}
	for i, raw := range c.Objects {
		obj, err := decodeObject(raw)
		if err != nil {
			return nil, fmt.Errorf("objects[%d]: %w", i, err)
		}
		objects = append(objects, obj)
	}
	cl := fake.NewClientBuilder().WithScheme(claimsScheme).WithObjects(objects...).Build()
	manager, err := baremetal.NewDataManager(cl, data, logr.Discard())
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	var runErr error
	if c.Release {
		runErr = manager.ReleaseLeases(ctx)
	} else {
		runErr = manager.Reconcile(ctx)
	}
	answer := claimsAnswer{Ready: data.Status.Ready, ErrorMessage: data.Status.ErrorMessage}
	if runErr != nil {
		answer.Error = runErr.Error()
	}
	if answer.Claims, err = storedClaims(ctx, cl); err != nil {
		return nil, err
	}
	if answer.Secrets, err = storedSecrets(ctx, cl); err != nil {
		return nil, err
	}
	return answer, nil
}

func init() {
	register("metal3data-pools", referencedPools)
	register("metal3data-claims", reconcileClaims)
}

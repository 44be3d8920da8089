{{/* Chart name, truncated to a DNS label. */}}
{{- define "ironhook.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: the release name, or <release>-<chart> when the release name lacks the chart name. */}}
{{- define "ironhook.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "ironhook.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every resource. */}}
{{- define "ironhook.labels" -}}
helm.sh/chart: {{ include "ironhook.chart" . }}
app.kubernetes.io/name: {{ include "ironhook.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: ironhook
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels of one component: (dict "root" $ "component" "hooks"). */}}
{{- define "ironhook.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ironhook.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Labels of one component's resources: (dict "root" $ "component" "hooks"). */}}
{{- define "ironhook.componentLabels" -}}
{{ include "ironhook.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "ironhook.hooks.fullname" -}}
{{- printf "%s-hooks" (include "ironhook.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "ironhook.drivers.fullname" -}}
{{- printf "%s-drivers" (include "ironhook.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "ironhook.hooks.serviceAccountName" -}}
{{- if .Values.hooks.serviceAccount.create }}
{{- default (include "ironhook.hooks.fullname" .) .Values.hooks.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.hooks.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "ironhook.drivers.serviceAccountName" -}}
{{- if .Values.drivers.serviceAccount.create }}
{{- default (include "ironhook.drivers.fullname" .) .Values.drivers.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.drivers.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Ironhook image reference: repository@digest or repository:tag. */}}
{{- define "ironhook.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* http or https, after webhook.tls.enabled. */}}
{{- define "ironhook.hookScheme" -}}
{{- ternary "https" "http" .Values.webhook.tls.enabled }}
{{- end }}

{{/*
Base URL of the hook server as Metacontroller calls it: controllers.hookBaseURL, or the release's
Service by its full in-cluster name (Metacontroller's own service form would omit ".svc").
*/}}
{{- define "ironhook.hookBaseURL" -}}
{{- if .Values.controllers.hookBaseURL }}
{{- .Values.controllers.hookBaseURL | trimSuffix "/" }}
{{- else }}
{{- if not .Values.hooks.enabled }}
{{- fail "controllers.hookBaseURL is required when hooks.enabled is false (where is the hook server?)" }}
{{- end }}
{{- printf "%s://%s.%s.svc:%v" (include "ironhook.hookScheme" .) (include "ironhook.hooks.fullname" .) .Release.Namespace .Values.hooks.service.port }}
{{- end }}
{{- end }}

{{/* Bundled Metacontroller's full name, as the metacontroller-helm chart (alias metacontroller) computes it. */}}
{{- define "ironhook.metacontroller.fullname" -}}
{{- $mc := .Values.metacontroller }}
{{- if $mc.fullnameOverride }}
{{- $mc.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default "metacontroller" $mc.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Namespace of Metacontroller's ServiceAccount (rbac.metacontroller.serviceAccount or the bundled one). */}}
{{- define "ironhook.metacontroller.saNamespace" -}}
{{- $sa := .Values.rbac.metacontroller.serviceAccount }}
{{- if $sa.namespace }}
{{- $sa.namespace }}
{{- else if .Values.metacontroller.enabled }}
{{- default .Release.Namespace .Values.metacontroller.namespaceOverride }}
{{- end }}
{{- end }}

{{/* Name of Metacontroller's ServiceAccount (rbac.metacontroller.serviceAccount or the bundled one). */}}
{{- define "ironhook.metacontroller.saName" -}}
{{- $sa := .Values.rbac.metacontroller.serviceAccount }}
{{- if $sa.name }}
{{- $sa.name }}
{{- else if .Values.metacontroller.enabled }}
{{- $mcsa := default dict .Values.metacontroller.serviceAccount }}
{{- default (include "ironhook.metacontroller.fullname" .) $mcsa.name }}
{{- end }}
{{- end }}

{{/* Whether the ClusterRole with Metacontroller's own needs is rendered ("true" or ""). */}}
{{- define "ironhook.metacontroller.baseRules" -}}
{{- $v := .Values.rbac.metacontroller.baseRules }}
{{- if or (eq (toString $v) "true") (and (eq (toString $v) "auto") .Values.metacontroller.enabled) }}true{{ end }}
{{- end }}

{{/* Name of the Secret/ConfigMap Metacontroller reads the CA bundle from. */}}
{{- define "ironhook.caBundleName" -}}
{{- $ca := .Values.webhook.tls.caBundle }}
{{- if eq $ca.source "secret" }}
{{- required "webhook.tls.caBundle.name or webhook.tls.secretName is required for caBundle.source secret" (default .Values.webhook.tls.secretName $ca.name) }}
{{- else }}
{{- required "webhook.tls.caBundle.name is required for caBundle.source configMap" $ca.name }}
{{- end }}
{{- end }}

{{/* Secrets Metacontroller reads for the webhooks (for its namespaced Role); a YAML list. */}}
{{- define "ironhook.webhookSecretNames" -}}
{{- $names := list }}
{{- $tls := .Values.webhook.tls }}
{{- if and $tls.enabled (eq $tls.caBundle.source "secret") }}
{{- $names = append $names (include "ironhook.caBundleName" .) }}
{{- end }}
{{- if and $tls.enabled $tls.clientCertificate.enabled }}
{{- $names = append $names $tls.clientCertificate.secretName }}
{{- end }}
{{- if ne .Values.webhook.auth.type "none" }}
{{- $names = append $names .Values.webhook.auth.existingSecret }}
{{- end }}
{{- toYaml ($names | uniq | sortAlpha) }}
{{- end }}

{{/* Fails on settings that contradict each other; included by the hook Deployment and the controllers. */}}
{{- define "ironhook.validate" -}}
{{- $tls := .Values.webhook.tls }}
{{- if $tls.enabled }}
{{- $_ := required "webhook.tls.secretName is required when webhook.tls.enabled (a kubernetes.io/tls Secret for the hook server)" $tls.secretName }}
{{- if and (eq $tls.caBundle.source "inline") (not $tls.caBundle.inline) }}
{{- fail "webhook.tls.caBundle.inline is required for caBundle.source inline" }}
{{- end }}
{{- end }}
{{- if and $tls.clientCertificate.enabled (not $tls.enabled) }}
{{- fail "webhook.tls.clientCertificate.enabled needs webhook.tls.enabled" }}
{{- end }}
{{- if $tls.clientCertificate.enabled }}
{{- $_ := required "webhook.tls.clientCertificate.secretName is required (the certificate Metacontroller presents)" $tls.clientCertificate.secretName }}
{{- end }}
{{- if ne .Values.webhook.auth.type "none" }}
{{- $_ := required (printf "webhook.auth.existingSecret is required for webhook.auth.type %s" .Values.webhook.auth.type) .Values.webhook.auth.existingSecret }}
{{- end }}
{{- if and .Values.metacontroller.enabled (gt (int .Values.metacontroller.replicas) 1) (not (has "--leader-election" .Values.metacontroller.commandArgs)) (not (has "--leader-election=true" .Values.metacontroller.commandArgs)) }}
{{- fail "metacontroller.replicas > 1 needs --leader-election in metacontroller.commandArgs" }}
{{- end }}
{{- end }}

{{/*
Webhook security fields for one Metacontroller webhook (caBundle, authorization or basicAuth,
clientTLS), as YAML at column 0; empty when TLS and auth are off.
*/}}
{{- define "ironhook.webhookSecurity" -}}
{{- $ns := .Release.Namespace }}
{{- $tls := .Values.webhook.tls }}
{{- $auth := .Values.webhook.auth }}
{{- if $tls.enabled }}
{{- if eq $tls.caBundle.source "secret" }}
caBundle:
  secretRef:
    name: {{ include "ironhook.caBundleName" . }}
    namespace: {{ $ns }}
    key: {{ $tls.caBundle.key }}
{{- else if eq $tls.caBundle.source "configMap" }}
caBundle:
  configMapRef:
    name: {{ include "ironhook.caBundleName" . }}
    namespace: {{ $ns }}
    key: {{ $tls.caBundle.key }}
{{- else if eq $tls.caBundle.source "inline" }}
caBundle:
  inline: {{ $tls.caBundle.inline | quote }}
{{- end }}
{{- if $tls.clientCertificate.enabled }}
clientTLS:
  secretRef:
    name: {{ $tls.clientCertificate.secretName }}
    namespace: {{ $ns }}
  certKey: tls.crt
  privateKeyKey: tls.key
{{- end }}
{{- end }}
{{- if eq $auth.type "bearer" }}
authorization:
  type: Bearer
  secretRef:
    name: {{ $auth.existingSecret }}
    namespace: {{ $ns }}
    key: {{ $auth.tokenKey }}
{{- else if eq $auth.type "basic" }}
basicAuth:
  secretRef:
    name: {{ $auth.existingSecret }}
    namespace: {{ $ns }}
  usernameKey: {{ $auth.usernameKey }}
  passwordKey: {{ $auth.passwordKey }}
{{- end }}
{{- end }}

{{/* Restricted pod-level settings shared by the test pods. */}}
{{- define "ironhook.restrictedPodSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "ironhook.restrictedSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop:
    - ALL
{{- end }}

{{/* Fails on driver pool settings the pool would refuse or that contradict each other. */}}
{{- define "ironhook.drivers.validate" -}}
{{- $d := .Values.drivers }}
{{- if and (gt (int $d.replicas) 1) (not $d.leaderElection.enabled) }}
{{- fail "drivers.replicas > 1 needs drivers.leaderElection.enabled (two pools would execute the same requests)" }}
{{- end }}
{{- if ne (empty $d.deployImages.kernelURL) (empty $d.deployImages.ramdiskURL) }}
{{- fail "drivers.deployImages.kernelURL and drivers.deployImages.ramdiskURL must be set together" }}
{{- end }}
{{- if ge (int $d.shutdownTimeoutSeconds) (int $d.terminationGracePeriodSeconds) }}
{{- fail "drivers.shutdownTimeoutSeconds must be below drivers.terminationGracePeriodSeconds (the pool also releases its Lease and closes the agent API)" }}
{{- end }}
{{- end }}

{{/* "true" when the hook server runs the conversion listener the CRDs' conversion webhooks call. */}}
{{- define "ironhook.conversion.enabled" -}}
{{- if and .Values.hooks.enabled .Values.hooks.conversion.enabled }}true{{ end }}
{{- end }}

{{/* The kubernetes.io/tls Secret the conversion listener serves (chart-generated or cert-manager's). */}}
{{- define "ironhook.conversion.secretName" -}}
{{- printf "%s-conversion-tls" (include "ironhook.hooks.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* cert-manager Certificate of the conversion listener (the CRDs' inject-ca-from names it). */}}
{{- define "ironhook.conversion.certificateName" -}}
{{- printf "%s-conversion" (include "ironhook.hooks.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The names the API server may use for the hook Service, as a YAML list. */}}
{{- define "ironhook.conversion.dnsNames" -}}
{{- $svc := include "ironhook.hooks.fullname" . }}
{{- $ns := .Release.Namespace }}
{{- toYaml (list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns)) }}
{{- end }}

{{/*
The chart-generated CA and serving certificate of the conversion listener, as JSON {ca, crt, key}
(PEM): the existing Secret's on upgrade (lookup), else new ones. Made once per render and kept in
.Values, so the Secret and every CRD's caBundle carry the same CA.
*/}}
{{- define "ironhook.conversion.generatedCert" -}}
{{- if not (hasKey .Values "ironhookGeneratedConversionCert") }}
{{- $secret := lookup "v1" "Secret" .Release.Namespace (include "ironhook.conversion.secretName" .) }}
{{- $data := dig "data" dict $secret }}
{{- $cert := dict }}
{{- if and (hasKey $data "ca.crt") (hasKey $data "tls.crt") (hasKey $data "tls.key") }}
{{- $cert = dict "ca" (index $data "ca.crt" | b64dec) "crt" (index $data "tls.crt" | b64dec) "key" (index $data "tls.key" | b64dec) }}
{{- else }}
{{- $svc := include "ironhook.hooks.fullname" . }}
{{- $days := int .Values.hooks.conversion.certificateValidityDays }}
{{- $ca := genCA (printf "%s-conversion-ca" $svc) $days }}
{{- $leaf := genSignedCert (printf "%s.%s.svc" $svc .Release.Namespace) nil (include "ironhook.conversion.dnsNames" . | fromYamlArray) $days $ca }}
{{- $cert = dict "ca" $ca.Cert "crt" $leaf.Cert "key" $leaf.Key }}
{{- end }}
{{- $_ := set .Values "ironhookGeneratedConversionCert" $cert }}
{{- end }}
{{- toJson (get .Values "ironhookGeneratedConversionCert") }}
{{- end }}

{{/* Service port of the CRDs' conversion webhooks: the conversion listener's, else the hook port's. */}}
{{- define "ironhook.conversionServicePort" -}}
{{- if include "ironhook.conversion.enabled" . }}
{{- .Values.hooks.conversion.service.port }}
{{- else }}
{{- .Values.hooks.service.port }}
{{- end }}
{{- end }}

{{/*
caBundle (base64 PEM) of the CRDs' conversion webhooks: crds.conversion.caBundle; else, with the
conversion listener, the chart-generated CA (cert-manager's CA injector fills it instead with
certManager.enabled); else the inline webhook CA (webhook.tls.caBundle.source inline); else empty.
*/}}
{{- define "ironhook.conversionCABundle" -}}
{{- $tls := .Values.webhook.tls }}
{{- if .Values.crds.conversion.caBundle }}
{{- .Values.crds.conversion.caBundle }}
{{- else if include "ironhook.conversion.enabled" . }}
{{- if not .Values.certManager.enabled }}
{{- (include "ironhook.conversion.generatedCert" . | fromJson).ca | b64enc }}
{{- end }}
{{- else if and $tls.enabled (eq $tls.caBundle.source "inline") $tls.caBundle.inline }}
{{- $tls.caBundle.inline | b64enc }}
{{- end }}
{{- end }}

{{/*
Annotations of the CRDs with conversion webhooks, as YAML (empty when none): the keep policy,
cert-manager's CA injection with certManager.enabled, and crds.conversion.annotations (which win).
*/}}
{{- define "ironhook.conversionCRDAnnotations" -}}
{{- $annotations := dict }}
{{- if .Values.crds.keep }}
{{- $_ := set $annotations "helm.sh/resource-policy" "keep" }}
{{- end }}
{{- if and (include "ironhook.conversion.enabled" .) .Values.certManager.enabled (not .Values.crds.conversion.caBundle) }}
{{- $_ := set $annotations "cert-manager.io/inject-ca-from" (printf "%s/%s" .Release.Namespace (include "ironhook.conversion.certificateName" .)) }}
{{- end }}
{{- $annotations = merge (deepCopy .Values.crds.conversion.annotations) $annotations }}
{{- if $annotations }}
{{- toYaml $annotations }}
{{- end }}
{{- end }}

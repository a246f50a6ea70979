{{- define "pacer.name" -}}{{ default "pacer" .Values.nameOverride | trunc 63 | trimSuffix "-" }}{{- end -}}

{{- define "pacer.fullname" -}}
{{- if .Values.fullnameOverride -}}{{ .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else -}}
{{- $name := include "pacer.name" . -}}
{{- if contains $name .Release.Name -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}
{{- end -}}

{{- define "pacer.labels" -}}
app.kubernetes.io/name: {{ include "pacer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "pacer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "pacer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "pacer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}{{ default (include "pacer.fullname" .) .Values.serviceAccount.name }}{{- else -}}{{ default "default" .Values.serviceAccount.name }}{{- end -}}
{{- end -}}

{{/* <registry>/<repository>:<tag>, or @<digest>; global.imageRegistry wins over image.registry (umbrella charts). */}}
{{- define "pacer.image" -}}
{{- $values := .root.Values -}}
{{- $component := get $values.image .name | default dict -}}
{{- $registry := default $values.image.registry (($values.global | default dict).imageRegistry) -}}
{{- $repository := default .name $component.repository -}}
{{- if $component.digest -}}
{{ printf "%s/%s@%s" $registry $repository $component.digest }}
{{- else -}}
{{ printf "%s/%s:%s" $registry $repository (default .root.Chart.AppVersion $values.image.tag) }}
{{- end -}}
{{- end -}}

{{- define "pacer.pullSecrets" -}}
{{- $global := (.Values.global | default dict).imagePullSecrets -}}
{{- default .Values.image.pullSecrets $global | toYaml -}}
{{- end -}}

{{/* The same secrets' names ({name: ...} each, as in a pod), comma-separated: the probe pods, in this namespace, pull with them. */}}
{{- define "pacer.pullSecretNames" -}}
{{- $global := (.Values.global | default dict).imagePullSecrets -}}
{{- $names := list -}}
{{- range (default .Values.image.pullSecrets $global) -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- join "," $names -}}
{{- end -}}

{{/* The rules the operator needs, nothing more: see docs/installing.md for why each is there. */}}
{{- define "pacer.rules" -}}
- apiGroups: ["pacer.dev"]
  resources: ["benchmarkruns"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: ["pacer.dev"]
  resources: ["benchmarkruns/status", "benchmarksuites/status", "benchmarkschedules/status"]
  verbs: ["get", "patch"]
- apiGroups: ["pacer.dev"]
  resources: ["benchmarkschedules"]
  verbs: ["get", "list", "watch"]
# a schedule's slots make suites, and delete those past its spec.keep
- apiGroups: ["pacer.dev"]
  resources: ["benchmarksuites"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "create", "patch", "delete", "deletecollection"]
{{- if eq .Values.operator.agentAccess "apiServerProxy" }}
- apiGroups: [""]
  resources: ["pods/proxy"]
  verbs: ["get", "create"]
{{- end }}
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "create", "delete"]
# an https run's own certificate (a kubernetes.io/tls Secret owned by the run): created, never read; pods mount it
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end -}}

{{/* The history's Secret (jdbcUrl, user, password): the one given, or the chart's own PostgreSQL's. */}}
{{- define "pacer.historySecret" -}}
{{- default (printf "%s-history" (include "pacer.fullname" .)) .Values.history.existingSecret -}}
{{- end -}}

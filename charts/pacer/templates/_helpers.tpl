{{- define "pacer.name" -}}pacer{{- end -}}

{{- define "pacer.fullname" -}}
{{- if contains "pacer" .Release.Name -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}{{- else -}}{{ printf "%s-pacer" .Release.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "pacer.labels" -}}
app.kubernetes.io/name: pacer
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "pacer.selectorLabels" -}}
app.kubernetes.io/name: pacer
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "pacer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}{{ default (include "pacer.fullname" .) .Values.serviceAccount.name }}{{- else -}}{{ default "default" .Values.serviceAccount.name }}{{- end -}}
{{- end -}}

{{- define "pacer.image" -}}
{{ printf "%s/%s:%s" .root.Values.image.registry .name (default .root.Chart.AppVersion .root.Values.image.tag) }}
{{- end -}}

{{/* The rules the operator needs, nothing more: see docs/installing.md for why each is there. */}}
{{- define "pacer.rules" -}}
- apiGroups: ["pacer.dev"]
  resources: ["benchmarkruns"]
  verbs: ["get", "list", "watch", "patch", "delete"]
- apiGroups: ["pacer.dev"]
  resources: ["benchmarkruns/status"]
  verbs: ["get", "patch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "create", "delete", "deletecollection"]
{{- if eq .Values.operator.agentAccess "apiServerProxy" }}
- apiGroups: [""]
  resources: ["pods/proxy"]
  verbs: ["get", "create"]
{{- end }}
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "create", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end -}}

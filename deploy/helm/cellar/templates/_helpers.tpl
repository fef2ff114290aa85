{{/* Labels every object of the chart carries (the kustomize manifests carry the first two). */}}
{{- define "cellar.labels" -}}
app.kubernetes.io/name: cellar-operator
app.kubernetes.io/part-of: cellar
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "cellar.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The name of every object: cellar-operator for the release "cellar", as deploy/operator names them. */}}
{{- define "cellar.fullname" -}}
{{ printf "%s-operator" .Release.Name | trunc 63 | trimSuffix "-" }}
{{- end -}}

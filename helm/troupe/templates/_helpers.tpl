{{/*
The chart's short name: nameOverride or the chart name, cut to the 63 characters a label
value may hold.
*/}}
{{- define "troupe.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name the chart's objects share: fullnameOverride, else the release name when it
already contains the chart name, else "<release>-<chart>".
*/}}
{{- define "troupe.fullname" -}}
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

{{/*
"<chart>-<version>" for the helm.sh/chart label.
*/}}
{{- define "troupe.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels every object of the release carries.
*/}}
{{- define "troupe.labels" -}}
helm.sh/chart: {{ include "troupe.chart" . }}
{{ include "troupe.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: troupe
{{- end }}

{{/*
Labels that select the operator's pods; they never change across upgrades, because a
Deployment's selector is immutable.
*/}}
{{- define "troupe.selectorLabels" -}}
app.kubernetes.io/name: {{ include "troupe.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{/*
The ServiceAccount the operator runs as.
*/}}
{{- define "troupe.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "troupe.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The image reference: repository and tag, the tag defaulting to the chart's appVersion.
*/}}
{{- define "troupe.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/*
The claim that holds the state store.
*/}}
{{- define "troupe.stateClaimName" -}}
{{- default (printf "%s-state" (include "troupe.fullname" .)) .Values.persistence.existingClaim }}
{{- end }}

{{/*
Where the dashboard listens: every address of the pod when a Service is in front of it, the
pod's loopback (reached through kubectl port-forward) otherwise.
*/}}
{{- define "troupe.dashboardAddress" -}}
{{- if .Values.dashboard.service.enabled }}
{{- printf ":%v" .Values.dashboard.port }}
{{- else }}
{{- printf "127.0.0.1:%v" .Values.dashboard.port }}
{{- end }}
{{- end }}

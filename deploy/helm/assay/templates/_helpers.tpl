{{- define "assay.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "assay.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "assay.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "assay.secretName" -}}
{{- .Values.existingSecret | default (include "assay.fullname" .) -}}
{{- end -}}

{{- define "assay.image" -}}
{{ printf "%s:%s" .Values.image.repository .Values.image.tag }}
{{- end -}}

{{/* The environment every Assay container shares: settings, and secrets by reference. */}}
{{- define "assay.env" -}}
- name: ASSAY_ENV
  value: production
- name: ASSAY_DATA_DIR
  value: /data
- name: ALLOWED_HOSTS
  value: {{ .Values.config.allowedHosts | quote }}
- name: CSRF_TRUSTED_ORIGINS
  value: {{ .Values.config.csrfTrustedOrigins | quote }}
- name: ASSAY_HTTPS
  value: {{ ternary "1" "0" .Values.config.https | quote }}
- name: ASSAY_TRUST_FORWARDED_PROTO
  value: {{ ternary "1" "0" .Values.config.trustForwardedProto | quote }}
- name: ASSAY_OUTBOUND_ALLOW
  value: {{ .Values.config.outboundAllow | quote }}
{{- range $name, $key := dict "SECRET_KEY" "SECRET_KEY" "DATABASE_URL" "DATABASE_URL" "REDIS_URL" "REDIS_URL" }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "assay.secretName" $ }}
      key: {{ $key }}
{{- end }}
- name: ASSAY_SECRETS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "assay.secretName" . }}
      key: ASSAY_SECRETS_KEY
      optional: true
{{- range $name, $value := .Values.config.extraEnv }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}

{{- define "assay.volumes" -}}
- name: data
{{- if .Values.persistence.enabled }}
  persistentVolumeClaim:
    claimName: {{ .Values.persistence.existingClaim | default (printf "%s-data" (include "assay.fullname" .)) }}
{{- else }}
  emptyDir: {}
{{- end }}
{{- end -}}

{{- define "assay.podSpecCommon" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  {{- include "assay.volumes" . | nindent 2 }}
{{- end -}}

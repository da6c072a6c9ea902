package golden_test

import (
	"fmt"
	"time"

	thingsv1 "github.com/syncer-gen/syncer-gen/internal/golden/api/things/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// deploymentPod returns pod i of namespace ns shaped like a Deployment's
// (DESIGN.md's projection facts): two containers with env, resources,
// probes and mounts; ten labels, five annotations, an owner, status with
// conditions and container statuses, managed fields of three managers.
func deploymentPod(ns string, i int, node string) *corev1.Pod {
	name := fmt.Sprintf("web-7d9c8b6f5-%05d", i)
	labels := map[string]string{
		"app.kubernetes.io/name": "web", "app.kubernetes.io/instance": "web-prod", "app.kubernetes.io/version": "1.27.3",
		"app.kubernetes.io/component": "frontend", "app.kubernetes.io/part-of": "shop", "app.kubernetes.io/managed-by": "helm",
		"pod-template-hash": "7d9c8b6f5", "team": "storefront", "tier": "web", "environment": "production",
	}
	annotations := map[string]string{
		"prometheus.io/scrape": "true", "prometheus.io/port": "9090", "prometheus.io/path": "/metrics",
		"kubectl.kubernetes.io/restartedAt": "2026-11-20T10:15:00Z", "checksum/config": "8f14e45fceea167a5a36dedd4bea2543e0a3c1d2f9b7e6a5d4c3b2a1f0e9d8c7",
	}
	t := metav1.NewTime(time.Date(2026, 11, 20, 10, 15, 0, 0, time.UTC))
	fields := metav1.NewFieldsV1
	ctrlFields := `{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app.kubernetes.io/component":{},"f:app.kubernetes.io/instance":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:app.kubernetes.io/version":{},"f:environment":{},"f:pod-template-hash":{},"f:team":{},"f:tier":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"5b0c8f0e-1d2a-4c3b-9e8f-7a6b5c4d3e2f\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"LOG_LEVEL\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"PORT\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:imagePullPolicy":{},"f:livenessProbe":{".":{},"f:httpGet":{".":{},"f:path":{},"f:port":{}}},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},"f:readinessProbe":{".":{},"f:httpGet":{".":{},"f:path":{},"f:port":{}}},"f:resources":{".":{},"f:limits":{".":{},"f:cpu":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/etc/app\"}":{".":{},"f:mountPath":{},"f:name":{}}}},"k:{\"name\":\"proxy\"}":{".":{},"f:args":{},"f:env":{".":{},"k:{\"name\":\"CACHE_URL\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"DB_HOST\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"FEATURES\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"POD_NAME\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:fieldRef":{}}}},"f:image":{},"f:imagePullPolicy":{},"f:livenessProbe":{".":{},"f:failureThreshold":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}},"f:initialDelaySeconds":{},"f:periodSeconds":{}},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":15001,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},"f:resources":{".":{},"f:limits":{".":{},"f:cpu":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/var/cache/app\"}":{".":{},"f:mountPath":{},"f:name":{}}}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{".":{},"k:{\"name\":\"config\"}":{".":{},"f:configMap":{".":{},"f:name":{}},"f:name":{}}}}}`
	kubeletFields := `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"PodReadyToStartContainers\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:initContainerStatuses":{},"f:qosClass":{},"f:observedGeneration":{},"f:resize":{},"f:resourceClaimStatuses":{},"f:ephemeralContainerStatuses":{},"f:hostIPs":{".":{},"k:{\"ip\":\"172.18.0.4\"}":{".":{},"f:ip":{}}},"f:hostIP":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.244.1.23\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`
	schedFields := `{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}}}}`
	container := func(cname, image string, port int32) corev1.Container {
		var env []corev1.EnvVar
		for _, kv := range [][2]string{{"LOG_LEVEL", "info"}, {"PORT", fmt.Sprint(port)}, {"REGION", "eu-west-1"}, {"FEATURES", "search,recommendations,cart-v2"},
			{"DB_HOST", "postgres.shop.svc.cluster.local"}, {"CACHE_URL", "redis://redis.shop.svc:6379/0"}, {"OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector.observability:4317"}} {
			env = append(env, corev1.EnvVar{Name: kv[0], Value: kv[1]})
		}
		env = append(env, corev1.EnvVar{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}})
		probe := func(path string) *corev1.Probe {
			return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(port), Scheme: corev1.URISchemeHTTP}},
				InitialDelaySeconds: 5, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
		}
		return corev1.Container{
			Name: cname, Image: image, Args: []string{"--config=/etc/app/config.yaml", "--listen=:" + fmt.Sprint(port)},
			Ports: []corev1.ContainerPort{{Name: cname + "-http", ContainerPort: port, Protocol: corev1.ProtocolTCP},
				{Name: cname + "-metrics", ContainerPort: port + 1000, Protocol: corev1.ProtocolTCP}},
			Env: env,
			Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			},
			VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app"}, {Name: "cache", MountPath: "/var/cache/app"},
				{Name: "kube-api-access-x7k2p", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			LivenessProbe: probe("/healthz"), ReadinessProbe: probe("/ready"),
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			ImagePullPolicy: corev1.PullIfNotPresent,
		}
	}
	status := func(cname, image string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: cname, Ready: true, Started: new(true), Image: image,
			ImageID:     image + "@sha256:9b2a6c1f0e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b",
			ContainerID: "containerd://" + fmt.Sprintf("%064x", i+len(cname)),
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}}}
	}
	var conds []corev1.PodCondition
	for _, c := range []corev1.PodConditionType{"PodReadyToStartContainers", corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled} {
		conds = append(conds, corev1.PodCondition{Type: c, Status: corev1.ConditionTrue, LastTransitionTime: t})
	}
	ip := fmt.Sprintf("10.244.%d.%d", i/250%250, i%250+1)
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: "web-7d9c8b6f5-", Namespace: ns, UID: types.UID(fmt.Sprintf("8c1f3a2e-4b5d-4e6f-9a0b-%012d", i)),
			ResourceVersion: fmt.Sprint(100000 + i), CreationTimestamp: t, Labels: labels, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9c8b6f5",
				UID: "5b0c8f0e-1d2a-4c3b-9e8f-7a6b5c4d3e2f", Controller: new(true), BlockOwnerDeletion: new(true)}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &t, FieldsType: "FieldsV1", FieldsV1: fields(ctrlFields)},
				{Manager: "kube-scheduler", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &t, FieldsType: "FieldsV1", FieldsV1: fields(schedFields), Subresource: "status"},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &t, FieldsType: "FieldsV1", FieldsV1: fields(kubeletFields), Subresource: "status"},
			},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{container("app", "registry.example.com/shop/web:1.27.3", 8080), container("proxy", "envoyproxy/envoy:v1.32.1", 15001)},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}},
				{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "kube-api-access-x7k2p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					Sources: []corev1.VolumeProjection{
						{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: new(int64(3607)), Path: "token"}},
						{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
							Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
						{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
							{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
					},
					DefaultMode: new(int32(420)),
				}}},
			},
			RestartPolicy: corev1.RestartPolicyAlways, TerminationGracePeriodSeconds: new(int64(30)), DNSPolicy: corev1.DNSClusterFirst,
			ServiceAccountName: "web", NodeName: node, SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: new(true)},
			SchedulerName: "default-scheduler", EnableServiceLinks: new(true), PreemptionPolicy: new(corev1.PreemptLowerPriority), Priority: new(int32(0)),
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64(300))},
			},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, Conditions: conds, HostIP: "172.18.0.4", HostIPs: []corev1.HostIP{{IP: "172.18.0.4"}},
			PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, StartTime: &t, QOSClass: corev1.PodQOSBurstable,
			ContainerStatuses: []corev1.ContainerStatus{status("app", "registry.example.com/shop/web:1.27.3"), status("proxy", "envoyproxy/envoy:v1.32.1")},
		},
	}
}

// certGadget returns gadget i, shaped like a cert-manager Certificate of
// about 2.6 KB in JSON.
func certGadget(ns string, i int) *thingsv1.Gadget {
	t := metav1.NewTime(time.Date(2026, 11, 20, 10, 15, 0, 0, time.UTC))
	after := metav1.NewTime(t.Add(90 * 24 * time.Hour))
	host := fmt.Sprintf("shop-%04d.example.com", i)
	return &thingsv1.Gadget{
		TypeMeta: metav1.TypeMeta{APIVersion: "things.golden.example.com/v1", Kind: "Gadget"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("g%05d", i), Namespace: ns, UID: types.UID(fmt.Sprintf("3e2d1c0b-9a8f-4e6d-8c5b-%012d", i)),
			ResourceVersion: fmt.Sprint(200000 + i), Generation: 1, CreationTimestamp: t,
			Labels: map[string]string{"app.kubernetes.io/name": "shop", "app.kubernetes.io/instance": "shop-prod", "example.com/team": "red",
				"app.kubernetes.io/managed-by": "cert-manager", "environment": "production"},
			Annotations: map[string]string{"cert-manager.io/issue-temporary-certificate": "true"}},
		Spec: thingsv1.GadgetSpec{
			Owner: []string{"ann", "bob"}[i%2], SecretName: "shop-tls-" + fmt.Sprint(i), CommonName: host,
			DNSNames:    []string{host, "www." + host, "api." + host, "cdn." + host, "static." + host, "admin." + host},
			IPAddresses: []string{"203.0.113.10", "2001:db8::10"}, URIs: []string{"spiffe://cluster.local/ns/" + ns + "/sa/shop"},
			EmailAddresses: []string{"platform@example.com"},
			Usages:         []string{"digital signature", "key encipherment", "server auth", "client auth"},
			Duration:       &metav1.Duration{Duration: 2160 * time.Hour}, RenewBefore: &metav1.Duration{Duration: 360 * time.Hour},
			IssuerRef: thingsv1.IssuerRef{Name: "letsencrypt-prod", Kind: "ClusterIssuer", Group: "cert-manager.io"},
			Subject: &thingsv1.Subject{Organizations: []string{"Example Shop Ltd"}, Countries: []string{"GB"}, OrganizationalUnits: []string{"Platform"},
				Localities: []string{"London"}, Provinces: []string{"Greater London"}, StreetAddresses: []string{"1 Market Street"}, PostalCodes: []string{"EC1A 1AA"}},
			PrivateKey:     &thingsv1.PrivateKey{RotationPolicy: "Always", Encoding: "PKCS1", Algorithm: "ECDSA", Size: 256},
			SecretTemplate: &thingsv1.SecretTemplate{Labels: map[string]string{"app.kubernetes.io/name": "shop"}, Annotations: map[string]string{"reflector.v1.k8s.emberstack.com/reflection-allowed": "true"}},
			Tags:           []string{"tls", "public"}, Ports: []thingsv1.Port{{Name: "https", Port: 443}},
		},
		Status: thingsv1.GadgetStatus{
			Phase: "Ready", Ready: true, NotBefore: &t, NotAfter: &after, RenewalTime: &metav1.Time{Time: after.Add(-360 * time.Hour)}, Revision: new(3),
			Conditions: []metav1.Condition{
				{Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: 1, LastTransitionTime: t, Reason: "Ready", Message: "Certificate is up to date and has not expired"},
				{Type: "Issuing", Status: metav1.ConditionFalse, ObservedGeneration: 1, LastTransitionTime: t, Reason: "Issued", Message: "The certificate has been successfully issued"},
				{Type: "Renewing", Status: metav1.ConditionFalse, ObservedGeneration: 1, LastTransitionTime: t, Reason: "NotDue", Message: "Renewal is scheduled at the renewal time"},
			},
		},
	}
}

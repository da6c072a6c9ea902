package deploypod

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Managers are the field managers of such a pod: the controller that
// creates it (its spec and metadata), a labeller that applies labels and
// annotations, and the kubelet that writes its status.
var Managers = [3]string{"kube-controller-manager", "label-operator", "kubelet"}

// Created is the fixed time the objects carry, so that they are the same
// from run to run.
var Created = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

// Pod returns pod i of namespace ns, named name, without status and
// managedFields: what its creator writes.
func Pod(ns, name string, i int) *corev1.Pod {
	app := fmt.Sprintf("app-%03d", i%200)
	hash := fmt.Sprintf("%010x", uint64(i%200)*2654435761)
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name,
			Labels:      Labels(i),
			Annotations: Annotations(i),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-" + hash,
				UID:        types.UID(fmt.Sprintf("6f1c3f0e-0000-4000-8000-%012d", i%200)),
				Controller: ptr(true), BlockOwnerDeletion: ptr(true),
			}},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{
				container(app, "registry.example.com/shop/"+app+":v1.42.7", "http", 8080, i),
				container("sidecar", "registry.example.com/mesh/proxy:v1.26.3", "metrics", 15090, i),
			},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: app + "-config"}}}},
				{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					Sources: []corev1.VolumeProjection{
						{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr(int64(3607))}},
						{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
							Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
					}}}},
			},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr(int64(30)),
			DNSPolicy:                     corev1.DNSClusterFirst,
			ServiceAccountName:            app,
			NodeName:                      NodeName(i),
			SecurityContext:               &corev1.PodSecurityContext{RunAsNonRoot: ptr(true), FSGroup: ptr(int64(2000))},
			SchedulerName:                 corev1.DefaultSchedulerName,
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
			},
			Priority:           ptr(int32(0)),
			EnableServiceLinks: ptr(true),
			PreemptionPolicy:   ptr(corev1.PreemptLowerPriority),
		},
	}
}

// NodeName is the node pod i runs on, of 100.
func NodeName(i int) string { return fmt.Sprintf("node-%03d", i%100) }

// Labels are pod i's ten labels: those its controller sets and those a
// labeller applies (LabellerLabels).
func Labels(i int) map[string]string {
	app := fmt.Sprintf("app-%03d", i%200)
	m := map[string]string{
		"app.kubernetes.io/name":       app,
		"app.kubernetes.io/instance":   app + "-prod",
		"app.kubernetes.io/version":    "v1.42.7",
		"app.kubernetes.io/component":  "backend",
		"app.kubernetes.io/part-of":    "shop",
		"app.kubernetes.io/managed-by": "deployer",
		"pod-template-hash":            fmt.Sprintf("%010x", uint64(i%200)*2654435761),
	}
	for k, v := range LabellerLabels(i) {
		m[k] = v
	}
	return m
}

// LabellerLabels are the three labels the labeller manager applies.
func LabellerLabels(i int) map[string]string {
	return map[string]string{
		"team":                      fmt.Sprintf("team-%02d", i%17),
		"cost-center":               fmt.Sprintf("cc-%04d", i%311),
		"topology.example.com/zone": fmt.Sprintf("zone-%c", 'a'+i%3),
	}
}

// Annotations are pod i's five annotations.
func Annotations(i int) map[string]string {
	return map[string]string{
		"kubectl.kubernetes.io/restartedAt": "2026-01-02T03:04:05Z",
		"prometheus.io/scrape":              "true",
		"prometheus.io/port":                "15090",
		"sidecar.example.com/status":        `{"initContainers":null,"containers":["sidecar"],"volumes":["cache"],"imagePullSecrets":null}`,
		"checksum.example.com/config":       fmt.Sprintf("%064x", uint64(i)*0x9e3779b97f4a7c15),
	}
}

func container(name, image, portName string, port int32, i int) corev1.Container {
	var env []corev1.EnvVar
	for j, k := range []string{"LOG_LEVEL", "LISTEN_ADDR", "UPSTREAM_URL", "FEATURE_FLAGS", "REGION"} {
		env = append(env, corev1.EnvVar{Name: k, Value: fmt.Sprintf("%s-value-%d-%d", strings.ToLower(k), i%50, j)})
	}
	env = append(env,
		corev1.EnvVar{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
		corev1.EnvVar{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.podIP"}}},
	)
	probe := func(path string, delay int32) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(port), Scheme: corev1.URISchemeHTTP}},
			InitialDelaySeconds: delay, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
	}
	return corev1.Container{
		Name: name, Image: image,
		Args:  []string{"--config=/etc/" + name + "/config.yaml", "--port=" + fmt.Sprint(port)},
		Ports: []corev1.ContainerPort{{Name: portName, ContainerPort: port, Protocol: corev1.ProtocolTCP}},
		Env:   env,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "config", MountPath: "/etc/" + name, ReadOnly: true},
			{Name: "cache", MountPath: "/var/cache/" + name},
			{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
		},
		LivenessProbe:            probe("/healthz", 10),
		ReadinessProbe:           probe("/readyz", 5),
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		ImagePullPolicy:          corev1.PullIfNotPresent,
		SecurityContext:          &corev1.SecurityContext{AllowPrivilegeEscalation: ptr(false), ReadOnlyRootFilesystem: ptr(true)},
	}
}

// Status is pod i's status as its kubelet writes it, running; generation
// varies what changes from one write to the next (a restart count, a
// condition's time), so that each write is an update.
func Status(i, generation int) corev1.PodStatus {
	at := metav1.NewTime(Created.Add(time.Duration(generation) * time.Second))
	ip := fmt.Sprintf("10.%d.%d.%d", 64+i/65536%64, i/256%256, i%256)
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: at}
	}
	cs := func(name, image string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, Image: image, ImageID: image + "@sha256:" + fmt.Sprintf("%064x", uint64(len(name))*0x9e3779b97f4a7c15),
			ContainerID: fmt.Sprintf("containerd://%064x", uint64(i)*31+uint64(len(name))),
			Ready:       true, Started: ptr(true), RestartCount: int32(generation % 7),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at}}}
	}
	app := fmt.Sprintf("app-%03d", i%200)
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{cond("PodReadyToStartContainers"), cond(corev1.PodInitialized), cond(corev1.PodReady),
			cond(corev1.ContainersReady), cond(corev1.PodScheduled)},
		HostIP:    fmt.Sprintf("192.168.%d.%d", i%100/250, 10+i%100),
		HostIPs:   []corev1.HostIP{{IP: fmt.Sprintf("192.168.%d.%d", i%100/250, 10+i%100)}},
		PodIP:     ip,
		PodIPs:    []corev1.PodIP{{IP: ip}},
		StartTime: &Created,
		QOSClass:  corev1.PodQOSBurstable,
		ContainerStatuses: []corev1.ContainerStatus{
			cs(app, "registry.example.com/shop/"+app+":v1.42.7"),
			cs("sidecar", "registry.example.com/mesh/proxy:v1.26.3"),
		},
	}
}

// ManagedFields returns managedFields of the three managers over pod p (its
// labels, annotations, owner references, containers and status), for a pod
// made without a server; a server records its own.
func ManagedFields(p *corev1.Pod) []metav1.ManagedFieldsEntry {
	keys := func(prefix string, m map[string]string) map[string]any {
		out := map[string]any{}
		for k := range m {
			out[prefix+k] = map[string]any{}
		}
		return out
	}
	containers := map[string]any{}
	for _, c := range p.Spec.Containers {
		containers[`k:{"name":"`+c.Name+`"}`] = map[string]any{".": map[string]any{}, "f:image": map[string]any{}, "f:name": map[string]any{},
			"f:args": map[string]any{}, "f:env": map[string]any{}, "f:ports": map[string]any{}, "f:resources": map[string]any{
				"f:limits":   map[string]any{"f:cpu": map[string]any{}, "f:memory": map[string]any{}},
				"f:requests": map[string]any{"f:cpu": map[string]any{}, "f:memory": map[string]any{}}},
			"f:livenessProbe": map[string]any{}, "f:readinessProbe": map[string]any{}, "f:volumeMounts": map[string]any{}}
	}
	statuses := map[string]any{}
	for _, c := range p.Spec.Containers {
		statuses[`k:{"name":"`+c.Name+`"}`] = map[string]any{"f:ready": map[string]any{}, "f:restartCount": map[string]any{},
			"f:state": map[string]any{"f:running": map[string]any{"f:startedAt": map[string]any{}}}}
	}
	entry := func(manager string, op metav1.ManagedFieldsOperationType, sub string, set map[string]any) metav1.ManagedFieldsEntry {
		raw, err := json.Marshal(set)
		if err != nil {
			panic(err) // maps of strings marshal
		}
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", Time: &Created,
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(raw)), Subresource: sub}
	}
	return []metav1.ManagedFieldsEntry{
		entry(Managers[0], metav1.ManagedFieldsOperationUpdate, "", map[string]any{
			"f:metadata": map[string]any{"f:labels": keys("f:", p.Labels), "f:ownerReferences": map[string]any{}},
			"f:spec":     map[string]any{"f:containers": containers, "f:volumes": map[string]any{}, "f:nodeName": map[string]any{}}}),
		entry(Managers[1], metav1.ManagedFieldsOperationApply, "", map[string]any{
			"f:metadata": map[string]any{"f:labels": keys("f:", LabellerLabels(0)), "f:annotations": keys("f:", p.Annotations)}}),
		entry(Managers[2], metav1.ManagedFieldsOperationUpdate, "status", map[string]any{
			"f:status": map[string]any{"f:conditions": map[string]any{}, "f:containerStatuses": statuses,
				"f:phase": map[string]any{}, "f:podIP": map[string]any{}, "f:podIPs": map[string]any{}}}),
	}
}

// Full returns pod i as a server would hold it: Pod, its status, its
// managedFields, and a uid and resourceVersion.
func Full(ns, name string, i int) *corev1.Pod {
	p := Pod(ns, name, i)
	p.UID = types.UID(fmt.Sprintf("0b1e7c00-0000-4000-8000-%012d", i))
	p.ResourceVersion = fmt.Sprint(1000 + i)
	p.CreationTimestamp = Created
	p.Status = Status(i, 0)
	p.ManagedFields = ManagedFields(p)
	return p
}

func ptr[T any](v T) *T { return &v }

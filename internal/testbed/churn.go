package testbed

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Churn is what ChurnConfigMaps did, as "namespace/name" keys.
type Churn struct {
	Changed, Deleted, Created []string
}

// ChurnConfigMaps changes n ConfigMaps of ns, deletes n others and creates
// n new ones (churn-0...), as happens while a process is down. The
// namespace must hold at least 2n ConfigMaps.
func ChurnConfigMaps(ctx context.Context, cs kubernetes.Interface, ns string, n int) (Churn, error) {
	var c Churn
	cms := cs.CoreV1().ConfigMaps(ns)
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		return c, err
	}
	if len(list.Items) < 2*n {
		return c, fmt.Errorf("churn: %d ConfigMaps in %s, need %d", len(list.Items), ns, 2*n)
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	for i := range n {
		cm := &items[i]
		cm.Data = map[string]string{"changed": "while down"}
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			return c, err
		}
		c.Changed = append(c.Changed, ns+"/"+cm.Name)
		gone := items[n+i].Name
		if err := cms.Delete(ctx, gone, metav1.DeleteOptions{}); err != nil {
			return c, err
		}
		c.Deleted = append(c.Deleted, ns+"/"+gone)
		name := fmt.Sprintf("churn-%d", i)
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			return c, err
		}
		c.Created = append(c.Created, ns+"/"+name)
	}
	return c, nil
}

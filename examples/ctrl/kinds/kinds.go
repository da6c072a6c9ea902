package kinds

import batchv1 "k8s.io/api/batch/v1"

// Job is batch/v1 Job, indexed by the name of its controller owner when
// that is a Widget: the index the kubebuilder tutorial's IndexField
// declares for the Jobs of a CronJob, here declared by a marker and served
// by ctrlsyncer to MatchingFields{"owner": name}.
//
// +syncer-gen
// +syncer-gen:index(owner)=.metadata.ownerReferences[?(@.controller==true && @.kind=='Widget' && @.apiVersion=='shop.example.com/v1alpha1')].name
// +syncer-gen:stripManagedFields
type Job = batchv1.Job

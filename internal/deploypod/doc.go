// Package deploypod makes Pods shaped like a Deployment's, for the
// benchmark's projection part and for tests that need realistic objects:
// two containers with env, resources, probes and mounts; ten labels, five
// annotations, a controller owner reference; a status with conditions and
// container statuses (Status); and the managedFields three field managers
// leave on such a pod (ManagedFields, for objects made without a server;
// against a server, write the parts as those managers do).
package deploypod

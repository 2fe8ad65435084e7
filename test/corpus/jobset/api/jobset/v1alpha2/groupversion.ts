export const groupVersion = { group: 'jobset.x-k8s.io', version: 'v1alpha2' } as const;

export const groupVersion = { group: 'leaderworkerset.x-k8s.io', version: 'v1' } as const;

export const groupVersion = { group: 'notification.toolkit.fluxcd.io', version: 'v1' } as const;

export const groupVersion = { group: 'notification.toolkit.fluxcd.io', version: 'v1beta3' } as const;

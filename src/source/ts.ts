import { loadTypeScript } from './typescript.ts';

/**
 * The compiler API as a value, for modules that use it throughout (the RBAC and webhook source
 * readers); importing this module loads TypeScript. Types come from `import type { ts as TS } from
 * 'ts-morph'`, which loads nothing.
 */
export const ts = loadTypeScript();

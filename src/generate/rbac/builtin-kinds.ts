import { builtinKinds } from '../../runtime/builtin-kinds.ts';

/** What generate rbac needs of a kind descriptor. */
// A type alias (not an interface) so that it reads as a StaticObject.
export type KindInfo = {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
};

/**
 * The runtime's `builtinKinds` table as plain data, for reading `.owns(builtinKinds.Deployment)`
 * statically: one source of truth with `op-gen/runtime`.
 */
export const BUILTIN_KINDS: Readonly<Record<string, KindInfo>> = Object.fromEntries(
  Object.entries(builtinKinds).map(([name, k]) => [
    name,
    { group: k.group, version: k.version, kind: k.kind, plural: k.plural, namespaced: k.namespaced },
  ]),
);

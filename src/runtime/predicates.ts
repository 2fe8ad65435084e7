import type { ObjectLike } from '../client/resource-client.ts';

/** Filters events before they reach the queue (controller-runtime's predicate.Funcs). */
export interface Predicate<T> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

interface MetaView {
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const meta = (obj: ObjectLike): MetaView => (obj.metadata ?? {}) as MetaView;

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => a?.[k] === b?.[k]);
}

/** Updates only when metadata.generation changed (spec edits; status writes do not bump it). */
export const generationChanged: Predicate<ObjectLike> = {
  update: (o, n) => meta(o).generation !== meta(n).generation,
};

export const labelsChanged: Predicate<ObjectLike> = {
  update: (o, n) => !sameRecord(meta(o).labels, meta(n).labels),
};

export const annotationsChanged: Predicate<ObjectLike> = {
  update: (o, n) => !sameRecord(meta(o).annotations, meta(n).annotations),
};

/** A predicate from one function applied to every event (old object absent for create/delete). */
export function predicate<T>(fn: (obj: T, oldObj?: T) => boolean): Predicate<T> {
  return { create: (o) => fn(o), update: (o, n) => fn(n, o), delete: (o) => fn(o) };
}

/** Passes when any of the predicates passes (e.g. generation or labels changed). */
export function anyOf<T>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => ps.some((p) => p.create?.(o) ?? true),
    update: (o, n) => ps.some((p) => p.update?.(o, n) ?? true),
    delete: (o) => ps.some((p) => p.delete?.(o) ?? true),
  };
}

export function passes<T>(ps: readonly Predicate<T>[], event: 'create' | 'delete', obj: T): boolean;
export function passes<T>(ps: readonly Predicate<T>[], event: 'update', obj: T, oldObj: T): boolean;
export function passes<T>(
  ps: readonly Predicate<T>[],
  event: 'create' | 'update' | 'delete',
  obj: T,
  oldObj?: T,
): boolean {
  for (const p of ps) {
    const ok =
      event === 'create'
        ? (p.create?.(obj) ?? true)
        : event === 'delete'
          ? (p.delete?.(obj) ?? true)
          : (p.update?.(oldObj as T, obj) ?? true);
    if (!ok) return false;
  }
  return true;
}

import type { AnyDependent } from './dependent.ts';

/**
 * Checks a workflow's dependents (unique names, known dependencies, no cycle) and returns them in
 * an order where each comes after what it depends on. Every problem is reported in one error.
 */
export function orderDependents(controller: string, list: readonly AnyDependent[]): AnyDependent[] {
  const problems: string[] = [];
  const byName = new Map<string, AnyDependent>();
  for (const d of list) {
    if (byName.has(d.name))
      problems.push(`two dependents are named "${d.name}": give one a distinct { name }`);
    byName.set(d.name, d);
  }
  for (const d of list)
    for (const dep of d.dependencies) {
      if (dep === d.name) problems.push(`"${d.name}" depends on itself`);
      else if (!byName.has(dep))
        problems.push(`"${d.name}" depends on "${dep}", which is not among the controller's dependents`);
    }
  const cycle = problems.length === 0 ? findCycle(byName) : undefined;
  if (cycle) problems.push(`a dependency cycle: ${cycle.join(' -> ')} (each depends on the next)`);
  if (problems.length > 0)
    throw new Error(
      `controller ${controller}: its dependents cannot form a workflow:\n- ${problems.join('\n- ')}`,
    );
  const out: AnyDependent[] = [];
  const done = new Set<string>();
  const visit = (d: AnyDependent): void => {
    if (done.has(d.name)) return;
    done.add(d.name);
    for (const dep of d.dependencies) visit(byName.get(dep)!);
    out.push(d);
  };
  for (const d of list) visit(d);
  return out;
}

/** A cycle among the dependencies, as names from its first member back to it, or undefined. */
function findCycle(byName: ReadonlyMap<string, AnyDependent>): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    const s = state.get(name);
    if (s === 'done') return undefined;
    if (s === 'visiting') return [...path.slice(path.indexOf(name)), name];
    state.set(name, 'visiting');
    path.push(name);
    for (const dep of byName.get(name)?.dependencies ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    path.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const name of byName.keys()) {
    const found = visit(name);
    if (found) return found;
  }
  return undefined;
}

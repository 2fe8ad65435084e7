/** Dependent resources and workflows (docs/dependents.md). */
export {
  dependent,
  dependents,
  readOnlyDependent,
  externalDependent,
  Dependent,
  type AnyDependent,
  type DependentContext,
  type CommonOptions,
  type ManagedOptions,
  type DependentOptions,
  type BulkOptions,
  type ReadOnlyOptions,
  type ExternalOptions,
} from './dependent.ts';
export { defaultReady, type ReadyResult } from './readiness.ts';
export { containsDesired } from './match.ts';
export { conditionType, type Outcome, type Phase } from './status.ts';
export {
  Workflow,
  DEPENDENT_LABEL,
  OWNER_UID_LABEL,
  DEPENDENTS_FINALIZER,
  type WorkflowOptions,
  type WorkflowHooks,
} from './workflow.ts';

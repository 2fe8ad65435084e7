import type { V1JobTemplateSpec, V1ObjectReference } from '@kubernetes/client-node';
import type { Condition, int32, int64, ObjectMeta, Time } from 'op-gen';

/** How runs of the job that overlap in time are handled. */
/** @enum Allow;Forbid;Replace */
export type ConcurrencyPolicy = string;

export const AllowConcurrent: ConcurrencyPolicy = 'Allow';
export const ForbidConcurrent: ConcurrencyPolicy = 'Forbid';
export const ReplaceConcurrent: ConcurrencyPolicy = 'Replace';

export interface CronJobSpec {
  /**
   * When to run, in cron syntax.
   * @minLength 0
   */
  schedule: string;
  /**
   * How late a run may start after its scheduled time, in seconds.
   * @minimum 0
   */
  startingDeadlineSeconds?: int64;
  /**
   * Overlapping runs: Allow, Forbid or Replace.
   * @default Allow
   */
  concurrencyPolicy?: ConcurrencyPolicy;
  /** Pauses the schedule. */
  suspend?: boolean;
  /** The job created at each run. */
  jobTemplate: V1JobTemplateSpec;
  /** @minimum 0 */
  successfulJobsHistoryLimit?: int32;
  /** @minimum 0 */
  failedJobsHistoryLimit?: int32;
}

export interface CronJobStatus {
  /**
   * The jobs running now.
   * @listType atomic
   * @minItems 1
   * @maxItems 10
   */
  active?: V1ObjectReference[];
  /** When a job was last started. */
  lastScheduleTime?: Time;
  /**
   * @listType map
   * @listMapKey type
   */
  conditions?: Condition[];
}

/**
 * A job on a schedule.
 * @kind
 * @subresource status
 */
export interface CronJob {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: CronJobSpec;
  status?: CronJobStatus;
}

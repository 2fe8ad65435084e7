import type { V1JobTemplateSpec, V1ObjectReference } from '@kubernetes/client-node';
import type { Condition, int32, int64, ObjectMeta, Time } from 'op-gen';

/** What happens when a run is due while the previous one still runs. */
export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';

export interface CronJobSpec {
  /** @minLength 0 */
  schedule: string;
  /** @minimum 0 */
  startingDeadlineSeconds?: int64;
  /** @default Allow */
  concurrencyPolicy?: ConcurrencyPolicy;
  suspend?: boolean;
  jobTemplate: V1JobTemplateSpec;
  /** @minimum 0 */
  successfulJobsHistoryLimit?: int32;
  /** @minimum 0 */
  failedJobsHistoryLimit?: int32;
}

export interface CronJobStatus {
  /**
   * @listType atomic
   * @minItems 1
   * @maxItems 10
   */
  active?: V1ObjectReference[];
  lastScheduleTime?: Time;
  /**
   * @listType map
   * @listMapKey type
   */
  conditions?: Condition[];
}

/**
 * The hub version: schedules as one cron string.
 * @kind
 * @storageversion
 * @subresource status
 */
export interface CronJob {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: CronJobSpec;
  status?: CronJobStatus;
}

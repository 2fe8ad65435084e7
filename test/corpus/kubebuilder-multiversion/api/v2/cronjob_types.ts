import type { V1JobTemplateSpec, V1ObjectReference } from '@kubernetes/client-node';
import type { Condition, int32, int64, ObjectMeta, Time } from 'op-gen';

/** One field of a cron schedule, e.g. `*\/5`. */
export type CronField = string;

/** A cron schedule split into its fields; a missing field means `*`. */
export interface CronSchedule {
  minute?: CronField;
  hour?: CronField;
  dayOfMonth?: CronField;
  month?: CronField;
  dayOfWeek?: CronField;
}

export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';

export interface CronJobSpec {
  schedule: CronSchedule;
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
 * A spoke version: the schedule as structured fields, converted to and from v1 by a webhook.
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

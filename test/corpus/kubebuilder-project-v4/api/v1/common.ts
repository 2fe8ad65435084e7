import type { Condition } from 'op-gen';

/** The status every kind of this project has. */
export interface CrewStatus {
  /**
   * @listType map
   * @listMapKey type
   */
  conditions?: Condition[];
}

export interface FooSpec {
  foo?: string;
}

import type { Duration, ObjectMeta } from 'op-gen';
import type { LocalObjectReference } from '../v1/meta.ts';

export const SlackProvider = 'slack';
export const GitHubProvider = 'github';

/** @validation rule="self.type == 'github' || self.type == 'gitlab' || self.type == 'gitea' || self.type == 'bitbucketserver' || self.type == 'bitbucket' || self.type == 'azuredevops' || !has(self.commitStatusExpr)" message="spec.commitStatusExpr is only supported for the 'github', 'gitlab', 'gitea', 'bitbucketserver', 'bitbucket', 'azuredevops' provider types" */
export interface ProviderSpec {
  /** @enum slack;discord;msteams;rocket;generic;generic-hmac;github;gitlab;gitea;giteapullrequestcomment;bitbucketserver;bitbucket;azuredevops;googlechat;googlepubsub;webex;sentry;azureeventhub;telegram;lark;matrix;opsgenie;alertmanager;grafana;githubdispatch;githubpullrequestcomment;gitlabmergerequestcomment;pagerduty;datadog;nats;zulip;otel;zoom;incident.io */
  type: string;
  /** @pattern ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$ */
  interval?: Duration;
  /** @maxLength 2048 */
  channel?: string;
  /** @maxLength 2048 */
  username?: string;
  /** @maxLength 2048 */
  address?: string;
  /** @pattern ^([0-9]+(\.[0-9]+)?(ms|s|m))+$ */
  timeout?: Duration;
  /**
   * @pattern ^(http|https)://.*$
   * @maxLength 2048
   */
  proxy?: string;
  proxySecretRef?: LocalObjectReference;
  secretRef?: LocalObjectReference;
  serviceAccountName?: string;
  certSecretRef?: LocalObjectReference;
  suspend?: boolean;
  commitStatusExpr?: string;
}

/**
 * Where notifications are sent (a chat, a git forge's commit status, ...).
 * @kind
 * @storageversion
 * @categories all;fluxcd;fluxcd-notifications
 * @printcolumn name=Age type=date jsonPath=.metadata.creationTimestamp description=""
 * @metadata annotations=kustomize.toolkit.fluxcd.io/substitute=disabled
 */
export interface Provider {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ProviderSpec;
}

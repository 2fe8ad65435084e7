import { buildCommand } from './build.ts';
import { buildInstallerCommand } from './build-installer.ts';
import { bundleCommand } from './bundle.ts';
import { catalogCommand } from './catalog.ts';
import type { CommandModule } from './command-module.ts';
import { createApiCommand } from './create-api.ts';
import { createWebhookCommand } from './create-webhook.ts';
import { crdCommand } from './crd-diff.ts';
import { devClusterCommand } from './dev-cluster.ts';
import { initCommand } from './init.ts';
import { runCommand } from './run.ts';
import { upgradeCommand } from './upgrade.ts';

/** Top-level commands (`op-gen <name>`); the `generate` subcommands are in generate-commands.ts. */
export const topLevelCommands: readonly CommandModule[] = [
  initCommand,
  createApiCommand,
  createWebhookCommand,
  bundleCommand,
  catalogCommand,
  buildCommand,
  buildInstallerCommand,
  crdCommand,
  runCommand,
  upgradeCommand,
  devClusterCommand,
];

import { bundleCommand } from './bundle.ts';
import type { CommandModule } from './command-module.ts';
import { createApiCommand } from './create-api.ts';
import { createWebhookCommand } from './create-webhook.ts';
import { generateClientCommand } from './generate-client.ts';
import { generateCrdCommand } from './generate-crd.ts';
import { generateRbacCommand } from './generate-rbac.ts';
import { generateTypesCommand } from './generate-types.ts';
import { generateWebhookCommand } from './generate-webhook.ts';
import { initCommand } from './init.ts';

/** Top-level commands (`op-gen <name>`). */
export const topLevelCommands: readonly CommandModule[] = [
  initCommand,
  createApiCommand,
  createWebhookCommand,
  bundleCommand,
];

/** Subcommands of `op-gen generate`. */
export const generateCommands: readonly CommandModule[] = [
  generateCrdCommand,
  generateRbacCommand,
  generateClientCommand,
  generateTypesCommand,
  generateWebhookCommand,
];

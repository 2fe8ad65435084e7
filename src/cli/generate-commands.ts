import type { CommandModule } from './command-module.ts';
import { generateClientCommand } from './generate-client.ts';
import { generateCrdCommand } from './generate-crd.ts';
import { generateDocsCommand } from './generate-docs.ts';
import { generateRbacCommand } from './generate-rbac.ts';
import { generateTypesCommand } from './generate-types.ts';
import { generateWebhookCommand } from './generate-webhook.ts';

/**
 * Subcommands of `op-gen generate`. Apart from the top-level commands so that `create api` and
 * `create webhook` can run generators in a program of their own without importing themselves.
 */
export const generateCommands: readonly CommandModule[] = [
  generateCrdCommand,
  generateRbacCommand,
  generateClientCommand,
  generateTypesCommand,
  generateWebhookCommand,
  generateDocsCommand,
];

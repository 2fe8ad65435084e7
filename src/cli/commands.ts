import type { CommandModule } from './command-module.ts';
import { generateCrdCommand } from './generate-crd.ts';
import { generateRbacCommand } from './generate-rbac.ts';

/** Top-level commands (`op-gen <name>`). */
export const topLevelCommands: readonly CommandModule[] = [];

/** Subcommands of `op-gen generate`. */
export const generateCommands: readonly CommandModule[] = [generateCrdCommand, generateRbacCommand];

import { resolve } from 'node:path';
import { readProjectFile, type ProjectFile } from '../project/project-file.ts';
import type { GenerateOptions, GeneratorContext } from '../generation/contract.ts';

/** The default API source folder when neither the option nor op-gen.yaml names one. */
export const DEFAULT_API_DIR = 'src/api';

/**
 * The project defaults every generator uses, resolved once here (not in the CLI, so library callers
 * get them too): the API folder is the option, else op-gen.yaml's apiDir, else `src/api`.
 */
export function generatorContext(options: Pick<GenerateOptions, 'cwd' | 'apiDir'>): GeneratorContext {
  const cwd = resolve(options.cwd);
  let read = false;
  let project: ProjectFile | undefined;
  const projectFile = (): ProjectFile | undefined => {
    if (!read) {
      project = readProjectFile(cwd);
      read = true;
    }
    return project;
  };
  return {
    cwd,
    get apiDir(): string {
      return options.apiDir ?? projectFile()?.apiDir ?? DEFAULT_API_DIR;
    },
    project: projectFile,
  };
}

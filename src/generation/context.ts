import { resolve } from 'node:path';
import { DEFAULT_API_DIR, readProjectFile, type ProjectFile } from '../project/project-file.ts';
import { SourceSet } from '../source/source-set.ts';
import type { GenerateOptions, GeneratorContext } from './contract.ts';

export { DEFAULT_API_DIR } from '../project/project-file.ts';

/**
 * The project defaults every generator uses, resolved once here (not in the CLI, so library callers
 * get them too): the API folder is the option, else op-gen.yaml's apiDir, else `src/api`. The
 * sources are loaded on first use, once for every generator given this context.
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
  const apiDir = (): string => options.apiDir ?? projectFile()?.apiDir ?? DEFAULT_API_DIR;
  let sources: SourceSet | undefined;
  return {
    cwd,
    get apiDir(): string {
      return apiDir();
    },
    project: projectFile,
    get sources(): SourceSet {
      sources ??= new SourceSet(cwd, apiDir());
      return sources;
    },
  };
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { OpGenError } from '../../errors.ts';
import { renderInstaller } from '../../installer/index.ts';
import { renderConfig, type Renderer } from '../../kustomize/index.ts';
import { requireProjectFile } from '../../project/project-file.ts';
import { sortKeysDeep } from '../../shared/yaml.ts';
import { readDeploySettings } from '../webhook/deploy-config.ts';
import { chartTemplates, HEADER } from './chart.ts';
import { HELMIGNORE, renderChartYaml, renderValues } from './values.ts';
import type {
  GenerateOptions,
  Generator,
  GeneratorContext,
  GeneratorPlan,
} from '../../generation/contract.ts';
import { runGenerator, type ResultOf } from '../../generation/run.ts';

export interface GenerateHelmOptions extends GenerateOptions {
  /** The manager image in values.yaml (default: config/manager's, as config/default renders it). */
  readonly image?: string;
  /** Chart folder (`outDir`, default dist/chart). */
  readonly renderer?: Renderer;
}

export type GenerateHelmResult = ResultOf<GeneratorPlan>;

/** `op-gen generate helm` on the generator contract: the chart's files; its old templates are owned. */
export const helmGenerator: Generator<GenerateHelmOptions> = {
  name: 'helm',
  markers: [],
  plan: planHelm,
};

function packageVersion(cwd: string): string {
  const path = join(cwd, 'package.json');
  if (!existsSync(path)) return '0.1.0';
  const pkg = JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.1.0';
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/**
 * `op-gen generate helm`: dist/chart (Chart.yaml, values.yaml, templates/) from the objects
 * config/default renders, laid out as kubebuilder's helm plugin (v2-alpha) lays it out.
 */
export function generateHelm(options: GenerateHelmOptions): Promise<GenerateHelmResult> {
  return runGenerator(helmGenerator, options);
}

function planHelm(ctx: GeneratorContext, options: GenerateHelmOptions): GeneratorPlan {
  const project = requireProjectFile(ctx.cwd);
  const rendered = options.image
    ? renderInstaller(options.cwd, options.image, options.renderer).objects
    : renderConfig(join(options.cwd, 'config', 'default'), {
        root: options.cwd,
        ...(options.renderer ? { renderer: options.renderer } : {}),
      }).objects;
  // Keys sorted, as in dist/install.yaml: the chart's text does not depend on the renderer.
  const objects = rendered.map((o) => sortKeysDeep(o));
  const { namePrefix } = readDeploySettings(options.cwd, project);
  const version = packageVersion(options.cwd);
  const chart = chartTemplates({ projectName: project.projectName, version, objects, namePrefix });
  if (!chart.manager)
    throw new OpGenError('config/default renders no Deployment: the chart needs the manager Deployment.');
  const out = resolve(options.cwd, options.outDir ?? join('dist', 'chart'));
  const files = [
    { path: join(out, 'Chart.yaml'), content: renderChartYaml(project.projectName, version) },
    { path: join(out, 'values.yaml'), content: renderValues({ ...chart, manager: chart.manager }) },
    { path: join(out, '.helmignore'), content: HELMIGNORE },
    ...chart.templates.map((t) => ({ path: join(out, t.path), content: t.content })),
  ];
  // Templates this command wrote (its header): those it no longer writes (a webhook removed, ...) are stale.
  const owned = filesUnder(join(out, 'templates')).filter((f) => readFileSync(f, 'utf8').includes(HEADER));
  return { files, owned, outDir: out };
}

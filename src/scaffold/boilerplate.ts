import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the license header of generated sources lives in a project (kubebuilder's hack/boilerplate). */
export const BOILERPLATE_FILE = 'hack/boilerplate.ts.txt';

export type License = 'apache2' | 'none';
export const LICENSES: readonly License[] = ['apache2', 'none'];

/** The header comment that starts every generated TypeScript file; empty for `--license none`. */
export function licenseHeader(license: License, owner: string, year: number): string {
  if (license === 'none') return '';
  return `/*
Copyright ${year} ${owner}.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

`;
}

/** The header a project chose at `init`: the boilerplate file, followed by a blank line. */
export function projectHeader(root: string): string {
  const path = join(root, BOILERPLATE_FILE);
  if (!existsSync(path)) return '';
  const text = readFileSync(path, 'utf8').trim();
  return text ? `${text}\n\n` : '';
}

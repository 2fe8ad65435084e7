/**
 * Child-process entry of childProcessSource(): loads the default kubeconfig with client-node and
 * prints the resolved credentials as JSON on stdout. Argument: an optional context name.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { credentialsFromKubeConfig } from './credentials.ts';
import { checkDefaultKubeConfig, KubeConfigNotFoundError } from './kubeconfig-check.ts';

try {
  checkDefaultKubeConfig();
} catch (err) {
  if (!(err instanceof KubeConfigNotFoundError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(3);
}
const kc = new KubeConfig();
kc.loadFromDefault();
const context = process.argv[2];
if (context) kc.setCurrentContext(context);
process.stdout.write(JSON.stringify(await credentialsFromKubeConfig(kc)));

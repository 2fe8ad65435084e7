/**
 * Child-process entry of childProcessSource(): loads the default kubeconfig with client-node and
 * prints the resolved credentials as JSON on stdout. Argument: an optional context name.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { credentialsFromKubeConfig } from './credentials.ts';

const kc = new KubeConfig();
kc.loadFromDefault();
const context = process.argv[2];
if (context) kc.setCurrentContext(context);
process.stdout.write(JSON.stringify(await credentialsFromKubeConfig(kc)));

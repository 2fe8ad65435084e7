export {
  buildInstaller,
  renderInstaller,
  renderInstallYaml,
  type BuildInstallerOptions,
  type BuildInstallerResult,
} from './build-installer.ts';
export { renderConfig, type Renderer } from './render-config.ts';

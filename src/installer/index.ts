export {
  buildInstaller,
  renderInstaller,
  renderInstallYaml,
  type BuildInstallerOptions,
  type BuildInstallerResult,
} from './build-installer.ts';

// The e2e harness: see test/e2e/README.md.
export { startCodeServer, type CodeServer, type CodeServerOptions } from './codeServer';
export { heavyBuiltins } from './codeServerConfig';
export { runExtensionTests, type ExtensionTestsOptions, type ExtensionTestsResult } from './runExtensionTests';
export { withCodeServerPage, type PageContext, type PageSessionOptions } from './withCodeServerPage';
export { stopCodeServers } from './session';
export { e2eSetup, ensureVsix, type E2eSetup } from './vsix';
export { StepError } from './steps';
export { assertToolsInstalled, fakeLmExtension, repoRoot } from './paths';
export { WorkerApi, isAlive, poll, type Health, type WorkerObservation, type WorkerSession } from './worker';
export { quickOpen, runCommand, webviewFrame } from './ui';

// The same extension-host tests on desktop VS Code (Electron) through @vscode/test-electron,
// for machines that can download VS Code (a developer's laptop; not this project's CI,
// which has no network: there test/e2e/suites/activation.ts runs them in code-server).
//
//   node --import tsx test/e2e/electron/runTest.ts [host entry, default test/e2e/host/activation.ts]
//
// VSCODE_VERSION picks the build (default 1.139.1, the one inside code-server 4.139.1);
// VSCODE_EXECUTABLE uses an installed one instead of downloading. On Linux without a display
// run it under `xvfb-run -a`. It installs our .vsix (CLAUDE_MEM_VSIX or a fresh package) into a
// temp extensions dir, loads the fake LM and the bundled tests as development extensions, and
// exits with the tests' exit code.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { downloadAndUnzipVSCode, resolveCliArgsFromVSCodeExecutablePath, runTests } from '@vscode/test-electron';
import { bundleHostTests } from '../harness/bundle';
import { cacheDir, fakeLmExtension } from '../harness/paths';
import { ensureVsix } from '../harness/vsix';
import { RESULTS_ENV, type HostReport } from '../host/report';

async function main(): Promise<number> {
  const entry = process.argv[2] ?? 'test/e2e/host/activation.ts';
  const vsix = ensureVsix();
  const exe =
    process.env.VSCODE_EXECUTABLE ??
    (await downloadAndUnzipVSCode({ version: process.env.VSCODE_VERSION ?? '1.139.1', cachePath: path.join(cacheDir, 'vscode-test') }));

  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cm-e2e-electron-'));
  const dirs = ['--user-data-dir', path.join(root, 'data'), '--extensions-dir', path.join(root, 'extensions')];
  const settings = { 'security.workspace.trust.enabled': false, 'telemetry.telemetryLevel': 'off', 'update.mode': 'none' };
  fs.mkdirSync(path.join(root, 'data/User'), { recursive: true });
  fs.writeFileSync(path.join(root, 'data/User/settings.json'), JSON.stringify(settings));
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const testsDir = path.join(root, 'tests');
  fs.mkdirSync(testsDir);
  const bundle = await bundleHostTests(entry, testsDir);
  const resultsFile = path.join(root, 'results.json');

  try {
    // reuseMachineInstall: true only stops it from adding its own .vscode-test dirs; ours follow.
    const [cli, ...cliArgs] = resolveCliArgsFromVSCodeExecutablePath(exe, { reuseMachineInstall: true });
    const install = spawnSync(cli, [...cliArgs, ...dirs, '--install-extension', vsix], { encoding: 'utf8', stdio: 'pipe' });
    if (install.status !== 0) throw new Error(`installing ${vsix} failed:\n${install.stdout}\n${install.stderr}`);

    const code = await runTests({
      vscodeExecutablePath: exe,
      // Desktop VS Code takes several development extensions (code-server's payload does not).
      extensionDevelopmentPath: [fakeLmExtension, testsDir],
      extensionTestsPath: bundle.entry,
      extensionTestsEnv: { [RESULTS_ENV]: resultsFile },
      launchArgs: [workspace, ...dirs, '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes', '--disable-gpu'],
    }).catch(() => 1); // runTests rejects on a non-zero exit; the report below says why
    if (fs.existsSync(resultsFile)) {
      const report = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as HostReport;
      for (const t of report.tests) console.log(`${t.ok ? 'ok  ' : 'FAIL'} ${t.name} (${t.ms} ms)${t.error ? `\n${bundle.mapStack(t.error)}` : ''}`);
    } else {
      console.error('no host report: the tests did not start (see the VS Code output above)');
    }
    return code;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

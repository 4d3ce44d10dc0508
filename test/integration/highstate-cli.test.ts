// The highstate outputter and state-run exit codes through the real CLI (issue 9, Output):
// `brine call` and `brine run` against a real minion, with a custom module that returns a state
// run's structure and retcode 2 as a failed state run does (state.* itself is another branch's).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Cluster, repoRoot, runCli, type CliResult } from '../helpers/cluster.js';

const STATES = {
  'pkg_|-nginx_|-nginx_|-installed': {
    name: 'nginx',
    result: true,
    changes: {},
    comment: 'All specified packages are already installed',
    __id__: 'nginx',
    __sls__: 'web',
    __run_num__: 0,
    start_time: '12:00:00.123456',
    duration: 12.345,
  },
  'file_|-conf_|-/etc/nginx/nginx.conf_|-managed': {
    name: '/etc/nginx/nginx.conf',
    result: true,
    changes: { diff: '--- \n+++ \n@@ -1 +1 @@\n-a\n+b\n' },
    comment: 'File /etc/nginx/nginx.conf updated',
    __id__: 'conf',
    __sls__: 'web',
    __run_num__: 1,
    start_time: '12:00:00.200000',
    duration: 3.5,
  },
};
const FAILED = {
  ...STATES,
  'service_|-nginx-svc_|-nginx_|-running': {
    name: 'nginx',
    result: false,
    changes: {},
    comment: 'Service nginx failed to start',
    __id__: 'nginx-svc',
    __sls__: 'web',
    __run_num__: 2,
    start_time: '12:00:00.300000',
    duration: 1.0,
  },
};

function moduleSource(): string {
  // The module reports retcode 2 with the registry's own withRetcode, as the state runner does.
  const modules = pathToFileURL(path.join(repoRoot(), 'dist', 'src', 'modules', 'index.js')).href;
  return `import { withRetcode } from ${JSON.stringify(modules)};
const OK = ${JSON.stringify(STATES)};
const FAILED = ${JSON.stringify(FAILED)};
export const functions = [
  { name: 'fakestate.ok', doc: 'A state run that succeeds.', params: [], run: () => OK },
  { name: 'fakestate.failed', doc: 'A state run with a failed state (retcode 2).', params: [], run: () => withRetcode(FAILED, 2) },
  { name: 'fakestate.compile_error', doc: 'A state run that did not compile (retcode 1).', params: [], run: () => withRetcode(["Rendering SLS 'base:web' failed: Jinja variable 'bug' is undefined"], 1) },
];
`;
}

describe('highstate output and state-run exit codes (brine call, brine run)', () => {
  let cluster: Cluster;
  let call: (args: string[]) => Promise<CliResult>;

  before(async () => {
    cluster = await Cluster.create();
    const dir = path.join(cluster.root, 'modules');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'fakestate.mjs'), moduleSource());
    cluster.writeMinionConfig('caller', { id: 'caller', module_dirs: [dir] });
    call = (args) => runCli(['call', '--local', ...args, '-c', cluster.minionConfigDir('caller')]);
    await cluster.startMaster({ auto_accept: true });
    const m = cluster.startMinion('hs1', { module_dirs: [dir] });
    await m.waitForOutput(/ready to receive requests/);
  });
  after(() => cluster.cleanup());

  it('brine call --out highstate prints the states and the summary; exit 0', async () => {
    const r = await call(['fakestate.ok', '--out', 'highstate']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.startsWith('local:\n----------\n          ID: nginx\n    Function: pkg.installed\n      Result: True\n'), r.stdout);
    assert.match(r.stdout, /\n {10}ID: conf\n {4}Function: file\.managed\n {8}Name: \/etc\/nginx\/nginx\.conf\n/);
    assert.match(r.stdout, /\n {18}\+b\n/, 'the diff is printed as text');
    assert.ok(r.stdout.endsWith('\nSummary for local\n------------\nSucceeded: 2 (changed=1)\nFailed:    0\n------------\nTotal states run:     2\nTotal run time:  15.845 ms\n'), r.stdout);
    assert.doesNotMatch(r.stdout, /\x1b/, 'no colour when not a terminal');
  });

  it('a failed state: brine call exits 1, with --retcode-passthrough exits 2', async () => {
    const r = await call(['fakestate.failed', '--out', 'highstate']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /\nSucceeded: 2 \(changed=1\)\nFailed: {4}1\n/);
    const pass = await call(['fakestate.failed', '--out', 'highstate', '--retcode-passthrough']);
    assert.equal(pass.code, 2, pass.stderr);
    const compile = await call(['fakestate.compile_error', '--out', 'highstate', '--retcode-passthrough']);
    assert.equal(compile.code, 1);
    assert.equal(compile.stdout, "local:\n    Data failed to compile:\n----------\n    Rendering SLS 'base:web' failed: Jinja variable 'bug' is undefined\n");
  });

  it('--state-output terse, --state-verbose False and --force-color on brine call', async () => {
    const terse = await call(['fakestate.failed', '--out', 'highstate', '--state-output', 'terse']);
    assert.match(terse.stdout, /^local:\n {2}Name: nginx - Function: pkg\.installed - Result: Clean - Started: 12:00:00\.123456 - Duration: 12\.345 ms\n/);
    assert.match(terse.stdout, /\n {2}Name: nginx - Function: service\.running - Result: Failed /);
    const quiet = await call(['fakestate.ok', '--out', 'highstate', '--state-verbose', 'False']);
    assert.doesNotMatch(quiet.stdout, /ID: nginx\n/);
    assert.match(quiet.stdout, /ID: conf\n/);
    const colored = await call(['fakestate.failed', '--out', 'highstate', '--force-color']);
    assert.ok(colored.stdout.startsWith('\x1b[0;31mlocal:\x1b[0;0m\n'), JSON.stringify(colored.stdout.slice(0, 40)));
    const bad = await call(['fakestate.ok', '--state-output', 'loud']);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /--state-output must be one of full, terse/);
  });

  it('state_output and state_verbose from the minion config apply to brine call', async () => {
    const dir = path.join(cluster.root, 'modules');
    cluster.writeMinionConfig('terse-caller', { id: 'caller', module_dirs: [dir], state_output: 'mixed', state_verbose: false });
    const r = await runCli(['call', '--local', 'fakestate.failed', '--out', 'highstate', '-c', cluster.minionConfigDir('terse-caller')]);
    assert.doesNotMatch(r.stdout, /Name: nginx - Function: pkg\.installed/, 'state_verbose False hides the clean state');
    assert.match(r.stdout, /\n {2}Name: \/etc\/nginx\/nginx\.conf - Function: file\.managed - Result: Changed/);
    assert.match(r.stdout, /\n {10}ID: nginx-svc\n/, 'mixed prints the failed state in full');
  });

  it('brine run: highstate output per minion, exit 1 when a state failed (retcode 2), raw structure with --out json', async () => {
    const r = await cluster.brine(['run', 'hs1', 'fakestate.failed', '--out', 'highstate', '--state-output', 'changes']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /ERROR: Minions returned with non-zero exit code/);
    assert.ok(r.stdout.startsWith('hs1:\n  Name: nginx - Function: pkg.installed - Result: Clean'), r.stdout);
    assert.match(r.stdout, /\nSummary for hs1\n-{12}\nSucceeded: 2 \(changed=1\)\nFailed: {4}1\n/);
    const ok = await cluster.brine(['run', 'hs1', 'fakestate.ok', '--out', 'highstate']);
    assert.equal(ok.code, 0, ok.stderr);
    const json = await cluster.brine(['run', 'hs1', 'fakestate.failed', '--out', 'json']);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stdout), { hs1: FAILED });
  });
});

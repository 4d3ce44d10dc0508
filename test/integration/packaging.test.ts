// Issue 11, packaging: the tarball `npm pack` makes, installed by packaging/install-minion.sh
// (`npm install -g --prefix`) into a staged root, runs a real master and minion FROM THE
// INSTALLED COPY: key accepted, test.ping and a state.apply answered. One npm install for the
// whole file (it builds better-sqlite3, a minute or two). The repository's dist/ is only read:
// the package is staged in a temp dir from the built files and packed with --ignore-scripts, so
// prepack never rebuilds dist/ under the feet of other tests.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FAST_MINION, Proc, freePort, repoRoot, waitUntil, type CliResult } from '../helpers/cluster.js';

const REPO = repoRoot();
const MINION_ID = 'pkg-minion';
const INSTALL_TIMEOUT = 12 * 60_000;

function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: opts.cwd, env: { ...process.env, NO_COLOR: '1', ...opts.env }, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code as number) : null;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The package directory `npm pack` reads, copied from the built checkout (what `files` lists). */
function stagePackage(dir: string): void {
  for (const entry of ['package.json', 'README.md', 'bin', 'packaging', 'docs', path.join('dist', 'src')]) {
    fs.cpSync(path.join(REPO, entry), path.join(dir, entry), { recursive: true });
  }
}

describe('the npm tarball, installed, runs a master and a minion', { timeout: INSTALL_TIMEOUT + 5 * 60_000 }, () => {
  let tmp: string;
  let tarball: string;
  let stagedRoot: string;
  let brineBin: string;
  let pkgDir: string;
  let installOutput: string;
  const procs: Proc[] = [];

  const installed = (args: string[], timeoutMs = 60_000) => run(brineBin, args, { timeoutMs });
  const script = (args: string[]) => run('sh', [path.join(REPO, 'packaging', 'install-minion.sh'), tarball, ...args], { timeoutMs: INSTALL_TIMEOUT });

  before(async () => {
    const bundle = path.join(REPO, 'dist', 'src', 'minion', 'job-worker.bundle.cjs');
    assert.ok(fs.existsSync(bundle), `${bundle} is missing: run \`npm run build\` before the tests`);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-pkg-'));
    const stage = path.join(tmp, 'stage');
    fs.mkdirSync(stage);
    stagePackage(stage);
    const wrap = await run(process.execPath, [path.join(REPO, 'scripts', 'shrinkwrap.mjs'), stage]);
    assert.equal(wrap.code, 0, wrap.stderr);
    const packed = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', tmp], { cwd: stage, timeoutMs: 120_000 });
    assert.equal(packed.code, 0, packed.stderr);
    tarball = path.join(tmp, packed.stdout.trim().split('\n').pop()!);
    assert.ok(fs.existsSync(tarball), packed.stdout);

    stagedRoot = path.join(tmp, 'root');
    const r = await script(['--root', stagedRoot, '--master', '127.0.0.1', '--id', MINION_ID]);
    installOutput = r.stdout + r.stderr;
    assert.equal(r.code, 0, installOutput);
    brineBin = path.join(stagedRoot, 'usr', 'local', 'bin', 'brine');
    pkgDir = path.join(stagedRoot, 'usr', 'local', 'lib', 'node_modules', 'brine');
  });

  after(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the tarball holds the built CLI, the job worker bundle with its code cache, the units and a shrinkwrap; no tests, sources or build state', async () => {
    const list = (await run('tar', ['-tzf', tarball])).stdout.split('\n').filter(Boolean);
    for (const f of [
      'package/bin/brine.js',
      'package/dist/src/cli/main.js',
      'package/dist/src/minion/job-worker.bundle.cjs',
      'package/dist/src/minion/job-worker.bundle.cache',
      'package/dist/src/minion/job-worker-loader.cjs',
      'package/dist/src/minion/code-cache.cjs',
      'package/packaging/install-minion.sh',
      'package/packaging/systemd/brine-minion.service',
      'package/packaging/systemd/brine-master.service',
      'package/npm-shrinkwrap.json',
      // the web view (src/api/ui/static, copied into dist by the build)
      'package/dist/src/api/ui/index.js',
      'package/dist/src/api/ui/static/index.html',
      'package/dist/src/api/ui/static/app.js',
      'package/dist/src/api/ui/static/style.css',
      // the host script of the #!py, #!pyobjects and #!pydsl renderers (src/render/python, copied by the build)
      'package/dist/src/render/python/brine_host.py',
      'package/dist/src/render/python/brine_pyobjects.py',
      'package/dist/src/render/python/brine_pydsl.py',
      // a tree's own renderers: their runner and brine's stand-in salt package (issue 22)
      'package/dist/src/render/python/brine_custom.py',
      'package/dist/src/render/python/salt_shim/salt/__init__.py',
      'package/dist/src/render/python/salt_shim/salt/utils/pyobjects.py',
    ]) {
      assert.ok(list.includes(f), `${f} is not in the tarball`);
    }
    const unwanted = list.filter((f) => /^package\/(dist\/(test|bench)\/|src\/|test\/|dist\/\.tsbuildinfo|node_modules\/)|\.map$|\.ts$/.test(f));
    assert.deepEqual(unwanted, []);
  });

  it('install-minion.sh staged the package, /etc/brine/minion and an enabled unit pointing at the prefix', () => {
    assert.match(installOutput, /staged under .*: enabled, not started|systemctl not found/);
    assert.ok(fs.existsSync(brineBin), installOutput);
    const conf = fs.readFileSync(path.join(stagedRoot, 'etc', 'brine', 'minion'), 'utf8');
    assert.match(conf, /^master: 127\.0\.0\.1$/m);
    assert.match(conf, new RegExp(`^id: ${MINION_ID}$`, 'm'));
    const unit = fs.readFileSync(path.join(stagedRoot, 'etc', 'systemd', 'system', 'brine-minion.service'), 'utf8');
    // the unit names the path the package has once the staged root is /, not the staging path
    assert.match(unit, /^ExecStart=(\/usr\/local\/bin\/brine|\S+\/node \/usr\/local\/lib\/node_modules\/brine\/bin\/brine\.js) minion$/m);
    assert.match(unit, /^KillMode=process$/m);
    if (!installOutput.includes('systemctl not found')) {
      assert.ok(fs.lstatSync(path.join(stagedRoot, 'etc', 'systemd', 'system', 'multi-user.target.wants', 'brine-minion.service')).isSymbolicLink());
    }
    // runtime dependencies only: no compiler, bundler or linter came along
    const modules = path.join(pkgDir, 'node_modules');
    for (const dev of ['typescript', 'esbuild', 'tsx', '@biomejs', 'dependency-cruiser', 'fast-check']) assert.ok(!fs.existsSync(path.join(modules, dev)), `${dev} was installed`);
    assert.ok(fs.existsSync(path.join(modules, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')), 'better-sqlite3 was not built');
    // the optional PAM binding builds where its headers are (CI installs libpam0g-dev)
    if (fs.existsSync('/usr/include/security/pam_appl.h')) {
      assert.ok(fs.existsSync(path.join(modules, 'authenticate-pam', 'build', 'Release', 'authenticate_pam.node')), 'authenticate-pam was not built');
    }
    assert.ok(!fs.existsSync(path.join(pkgDir, 'dist', '.tsbuildinfo')));
    // the web view's files, byte for byte what the build made: every one the page loads is there
    const uiDir = path.join(pkgDir, 'dist', 'src', 'api', 'ui', 'static');
    const built = fs.readdirSync(path.join(REPO, 'dist', 'src', 'api', 'ui', 'static')).sort();
    assert.deepEqual(fs.readdirSync(uiDir).sort(), built);
    for (const f of built) assert.equal(fs.readFileSync(path.join(uiDir, f), 'utf8'), fs.readFileSync(path.join(REPO, 'dist', 'src', 'api', 'ui', 'static', f), 'utf8'), f);
    assert.ok(built.includes('index.html') && built.includes('app.js'), built.join(', '));
  });

  it('the installed brine reports the package version (src/modules/version.ts matches package.json)', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    const r = await installed(['--version']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), pkg.version);
  });

  it('running install-minion.sh again changes nothing; new arguments update the config in place', async () => {
    const confFile = path.join(stagedRoot, 'etc', 'brine', 'minion');
    const unitFile = path.join(stagedRoot, 'etc', 'systemd', 'system', 'brine-minion.service');
    const conf = fs.readFileSync(confFile, 'utf8');
    const unit = fs.readFileSync(unitFile, 'utf8');
    const again = await script(['--root', stagedRoot, '--master', '127.0.0.1', '--id', MINION_ID]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /already installed/);
    assert.equal(fs.readFileSync(confFile, 'utf8'), conf);
    assert.equal(fs.readFileSync(unitFile, 'utf8'), unit);

    // an operator's own lines survive; master: is replaced, not duplicated
    fs.appendFileSync(confFile, 'log_level: info\n');
    const moved = await script(['--root', stagedRoot, '--master', 'localhost']);
    assert.equal(moved.code, 0, moved.stdout + moved.stderr);
    const updated = fs.readFileSync(confFile, 'utf8');
    assert.deepEqual(updated.match(/^master: .*$/gm), ['master: localhost']);
    assert.match(updated, /^log_level: info$/m);
    assert.match(updated, new RegExp(`^id: ${MINION_ID}$`, 'm'));

    const back = await script(['--root', stagedRoot, '--master', '127.0.0.1']);
    assert.equal(back.code, 0, back.stdout + back.stderr);
    assert.deepEqual(fs.readFileSync(confFile, 'utf8').match(/^master: .*$/gm), ['master: 127.0.0.1']);

    const bad = await script(['--root', stagedRoot, '--master', 'evil\nid: x']);
    assert.equal(bad.code, 64, bad.stdout + bad.stderr);
    assert.match(bad.stderr, /is not a host name or address/);
    assert.doesNotMatch(fs.readFileSync(confFile, 'utf8'), /evil/);
  });

  it('the installed copy runs the job worker bundle through its loader (no dist/.tsbuildinfo there)', async () => {
    const etc = path.join(tmp, 'call', 'etc');
    fs.mkdirSync(etc, { recursive: true });
    fs.writeFileSync(path.join(etc, 'minion'), `root_dir: ${path.join(tmp, 'call')}\nid: caller\nfile_client: local\nlog_level: error\n`);
    // only job-worker-loader.cjs writes this file (after a job): it shows the bundle was used
    const cacheOut = path.join(tmp, 'worker-cache-probe');
    const r = await run(brineBin, ['call', '--local', '-c', etc, '--out', 'json', 'test.ping'], { env: { BRINE_WORKER_CODE_CACHE_OUT: cacheOut } });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { local: true });
    assert.ok(fs.existsSync(cacheOut), 'the job ran without the bundle loader');
  });

  it('a master and a minion from the installed copy: key accepted, test.ping and state.apply answered; the web view is served', async () => {
    const port = await freePort();
    const apiPort = await freePort();
    const masterRoot = path.join(tmp, 'master');
    const srv = path.join(masterRoot, 'srv');
    const out = path.join(tmp, 'out', 'hello.txt');
    fs.mkdirSync(srv, { recursive: true });
    fs.writeFileSync(path.join(srv, 'top.sls'), "base:\n  '*':\n    - hello\n");
    fs.writeFileSync(path.join(srv, 'hello.sls'), `hello-file:\n  file.managed:\n    - name: ${out}\n    - contents: installed copy works\n    - makedirs: True\n`);
    const masterEtc = path.join(masterRoot, 'etc');
    fs.mkdirSync(masterEtc, { recursive: true });
    fs.writeFileSync(
      path.join(masterEtc, 'master'),
      `${JSON.stringify({ root_dir: masterRoot, interface: '127.0.0.1', ret_port: port, log_level: 'info', file_roots: { base: [srv] }, api: { port: apiPort, host: '127.0.0.1', disable_ssl: true } })}\n`,
    );
    // the minion uses the configuration install-minion.sh wrote, pointed at this staged root
    const minionEtc = path.join(stagedRoot, 'etc', 'brine');
    fs.appendFileSync(
      path.join(minionEtc, 'minion'),
      `root_dir: ${stagedRoot}\nmaster_port: ${port}\n${Object.entries(FAST_MINION)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}\n`,
    );
    const spawnInstalled = (name: string, args: string[]) => {
      const p = new Proc(name, spawn(brineBin, args, { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] }));
      procs.push(p);
      return p;
    };
    const master = spawnInstalled('master', ['master', '-c', masterEtc]);
    await master.waitForOutput(/brine master listening/, 30_000);
    const minion = spawnInstalled('minion', ['minion', '-c', minionEtc]);
    const cli = (args: string[]) => installed([...args, '-c', masterEtc]);

    await waitUntil(async () => (await cli(['key', '-l', 'un'])).stdout.split('\n').includes(MINION_ID), 30_000, `${MINION_ID} pending\n${minion.output}`);
    const accepted = await cli(['key', '-a', MINION_ID, '-y']);
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
    await minion.waitForOutput(/ready to receive requests/, 30_000);

    const ping = await cli(['run', MINION_ID, 'test.ping', '--out', 'json']);
    assert.equal(ping.code, 0, ping.stdout + ping.stderr);
    assert.deepEqual(JSON.parse(ping.stdout), { [MINION_ID]: true });

    const applied = await cli(['run', MINION_ID, 'state.apply', '--out', 'json']);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    const ret = (JSON.parse(applied.stdout) as Record<string, Record<string, { result: boolean; changes: Record<string, unknown> }>>)[MINION_ID];
    const state = ret?.[`file_|-hello-file_|-${out}_|-managed`];
    assert.ok(state, applied.stdout);
    assert.equal(state.result, true);
    assert.ok(Object.keys(state.changes).length > 0, applied.stdout);
    assert.equal(fs.readFileSync(out, 'utf8'), 'installed copy works\n');

    // the installed master serves the web view from the installed files, with its CSP
    const page = await fetch(`http://127.0.0.1:${apiPort}/ui/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.match(await page.text(), /<script type="module" src="\/ui\/app\.js">/);
    const app = await fetch(`http://127.0.0.1:${apiPort}/ui/app.js`);
    assert.equal(app.status, 200);
    assert.equal(await app.text(), fs.readFileSync(path.join(pkgDir, 'dist', 'src', 'api', 'ui', 'static', 'app.js'), 'utf8'));
  });
});

// Issue 12 (fleet-scale performance): a connected minion and `brine run` load only what they use.
// Each process runs with a module-loader hook that records every ES module and every CommonJS
// file it loaded; the master's code, SQLite, the API server, the certificate library and the
// `yaml` package must not be among them. Both ways main.js runs the CLI are checked: the bundle
// (scripts/bundle-cli.mjs; a loaded chunk counts as every module in it, from its meta.json), and
// the compiled modules themselves (BRINE_CLI_BUNDLE=0), whose dynamic imports the chunks follow.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Cluster, runCli } from '../helpers/cluster.js';
import { repoRoot } from '../helpers/repo.js';
import { waitUntil } from '../helpers/wait.js';

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.BRINE_TEST_LOADED, url + '\\n');
  return next(url, context);
}
`;
// ES modules through the hook; CommonJS files (require, createRequire) from require.cache
const REGISTER = (hooks: string): string => `import { register, createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
register(${JSON.stringify(hooks)});
const cache = createRequire(import.meta.url).cache;
const dump = () => {
  // the built-ins first: a fresh .cjs dump means a .builtins dump at least as fresh
  writeFileSync(process.env.BRINE_TEST_LOADED + '.builtins', process.moduleLoadList.join('\\n'));
  writeFileSync(process.env.BRINE_TEST_LOADED + '.cjs', Object.keys(cache).join('\\n'));
};
setInterval(dump, 100).unref();
process.on('exit', dump);
`;

// what neither a minion nor `brine run` needs
const HEAVY = [
  /node_modules\/better-sqlite3\//,
  /node_modules\/fastify\//,
  /node_modules\/@peculiar\//,
  /node_modules\/reflect-metadata\//,
  /node_modules\/tsyringe\//,
  /node_modules\/yaml\//,
  /\/src\/master\/master\.js$/,
  /\/src\/api\//,
  /\/src\/jobs\/job-cache\.js$/,
];

// what a minion without custom modules loads only for its first job (perf-lean2): the registry's
// execution modules, the state compiler and the renderers
const REGISTRY = [/node_modules\/nunjucks\//, /\/src\/modules\/default-registry\.js$/, /\/src\/state\/compiler\//, /\/src\/render\//];

// what a minion without beacons loads only when it matches a pattern or runs a beacon (issue 27,
// "minion at 45 MiB"): the RE2 engine, the beacons' implementations, and the master-side halves
// of the config, pki and transport barrels
const ON_USE = [
  /node_modules\/re2js\//,
  /\/src\/beacons\/index\.js$/,
  /\/src\/beacons\/(journald|inotify|ps|service|diskusage|load|memusage|network-info|status)\.js$/,
  /\/src\/config\/(index|docs|show)\.js$/,
  /\/src\/pki\/(index|key-store|auth-decision|autosign|key-actions)\.js$/,
  /\/src\/transport\/index\.js$/,
  // issue 27, thinmin2: the returners when a job names one, the minion reactor's engine with `reactor:`
  /\/src\/returners\/(registry|postgres|syslog)\.js$/,
  /\/src\/reactor\/engine\.js$/,
];

// what a plain \`brine minion -c DIR\` never loads (issue 27, thinmin): commander (the minion's
// flags are read without it), the diagnostic report ffi-rs asked for to tell glibc from musl, and
// perf_hooks (the \`performance\` global; the clock counts from process.uptime())
const IDLE_NEVER = [/node_modules\/commander\//];
const IDLE_NEVER_BUILTINS = ['NativeModule internal/process/report', 'NativeModule perf_hooks', 'NativeModule internal/perf/performance'];
// what the ES module facades of node:crypto and node:util load (every lazy getter), which the
// bundle's imports of built-ins avoid (scripts/bundle-cli.mjs; issue 27, thinmin2)
const BUNDLED_NEVER_BUILTINS = ['NativeModule internal/crypto/webcrypto', 'NativeModule internal/mime', 'NativeModule internal/util/parse_args/parse_args'];

const BUNDLE = path.join(repoRoot(), 'dist', 'src', 'cli', 'bundle');
const MODES = [
  { name: 'bundled', env: {} },
  { name: 'unbundled', env: { BRINE_CLI_BUNDLE: '0' } },
] as const;

/** Each chunk of the CLI bundle and the compiled modules it holds, as file URLs. */
function chunkModules(): Map<string, string[]> {
  const meta = JSON.parse(fs.readFileSync(path.join(BUNDLE, 'meta.json'), 'utf8')) as Record<string, string[]>;
  const url = (rel: string): string => pathToFileURL(path.resolve(BUNDLE, rel)).href;
  return new Map(Object.entries(meta).map(([chunk, inputs]) => [url(chunk), inputs.map(url)]));
}

/** What a process loaded: each URL the hook saw, a bundle chunk replaced by its modules. */
function loaded(file: string): { modules: string[]; chunks: string[] } {
  const read = (f: string): string[] => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter(Boolean) : []);
  const seen = [...read(file), ...read(`${file}.cjs`)];
  const inChunks = chunkModules();
  const chunks = seen.filter((u) => inChunks.has(u));
  return { modules: seen.flatMap((u) => inChunks.get(u) ?? [u]), chunks };
}

/** The bundle is used when it exists and is fresh (src/cli/main.ts); a build makes it so. */
function assertMode(mode: (typeof MODES)[number]['name'], chunks: string[]): void {
  if (mode === 'bundled') assert.ok(chunks.length > 0, `no chunk of ${BUNDLE} was loaded: run \`npm run build\` (the bundle is older than dist/.tsbuildinfo?)`);
  else assert.deepEqual(chunks, [], 'BRINE_CLI_BUNDLE=0 still ran the bundle');
}

function heavyIn(modules: string[]): string[] {
  return modules.filter((m) => HEAVY.some((re) => re.test(m)));
}

describe('issue 12: lean start-up of the minion and the CLI', () => {
  let c: Cluster;
  let env: (name: string) => NodeJS.ProcessEnv;

  before(async () => {
    c = await Cluster.create();
    const hooks = path.join(c.root, 'trace-hooks.mjs');
    fs.writeFileSync(hooks, HOOKS);
    const register = path.join(c.root, 'trace-register.mjs');
    fs.writeFileSync(register, REGISTER(pathToFileURL(hooks).href));
    env = (name) => ({ NODE_OPTIONS: `--import ${pathToFileURL(register).href}`, BRINE_TEST_LOADED: path.join(c.root, `${name}.loaded`) });
    await c.startMaster({ auto_accept: true });
  });
  after(async () => {
    await c.cleanup();
  });

  for (const [i, mode] of MODES.entries()) {
    const id = `lean${i + 1}`;
    it(`a minion that made its key and certificate and connected has loaded none of the heavy modules (${mode.name})`, async () => {
      const m = c.startMinion(id, {}, { ...env(`minion-${mode.name}`), ...mode.env });
      await m.waitForOutput(/ready to receive requests/, 30_000);
      // CommonJS files are dumped every 100 ms: read a dump made after the minion signed in
      const cjs = path.join(c.root, `minion-${mode.name}.loaded.cjs`);
      const readyAt = Date.now();
      await waitUntil(() => fs.existsSync(cjs) && fs.statSync(cjs).mtimeMs > readyAt, 10_000, `a dump of require.cache after ${id} signed in`);
      const { modules, chunks } = loaded(path.join(c.root, `minion-${mode.name}.loaded`));
      assertMode(mode.name, chunks);
      assert.ok(
        modules.some((u) => u.endsWith('/src/minion/minion.js')),
        `the hook saw the minion's modules:\n${modules.slice(0, 5).join('\n')}`,
      );
      const made = fs.readdirSync(path.join(c.root, 'minions', id), { recursive: true }).map(String);
      assert.ok(
        made.some((f) => f.endsWith('minion.crt')),
        `the minion made its certificate at this start:\n${made.join('\n')}`,
      );
      assert.deepEqual(heavyIn(modules), []);
      assert.deepEqual(
        modules.filter((m) => REGISTRY.some((re) => re.test(m))),
        [],
        'the module registry is built on the first job',
      );
      assert.deepEqual(
        modules.filter((m) => ON_USE.some((re) => re.test(m))),
        [],
        'RE2, the beacons and the master-side modules load on first use',
      );
      assert.deepEqual(
        modules.filter((m) => IDLE_NEVER.some((re) => re.test(m))),
        [],
        'a plain `brine minion -c DIR` is started without commander',
      );
      const builtins = fs.readFileSync(`${cjs.slice(0, -'.cjs'.length)}.builtins`, 'utf8').split('\n');
      assert.ok(builtins.includes('NativeModule tls'), `the dump of process.moduleLoadList is there:\n${builtins.slice(-5).join('\n')}`);
      assert.deepEqual(
        IDLE_NEVER_BUILTINS.filter((b) => builtins.includes(b)),
        [],
        'neither the diagnostic report (ffi-rs) nor perf_hooks in a connected idle minion',
      );
      if (mode.name === 'bundled') {
        assert.deepEqual(
          BUNDLED_NEVER_BUILTINS.filter((b) => builtins.includes(b)),
          [],
          "the bundle's imports of built-ins ran no facade's lazy getters",
        );
      }
      const r = await c.brine(['run', id, 'test.ping', '--out', 'json']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { [id]: true });
    });
  }

  for (const mode of MODES) {
    it(`brine run with a target that matches nothing loads neither the master nor yaml, and answers as before (${mode.name})`, async () => {
      const r = await runCli(['run', '-c', c.masterConfigDir, 'no-such-minion-*', 'test.ping'], { env: { ...env(`run-${mode.name}`), ...mode.env } });
      assert.equal(r.code, 2);
      // Salt's line, then the fix for a glob target (issue 26)
      assert.equal(r.stderr.split('\n')[0], 'ERROR: No return received');
      assert.match(r.stderr, /^ {2}fix: The target is a shell-style glob on the minion ID/m);
      const { modules, chunks } = loaded(path.join(c.root, `run-${mode.name}.loaded`));
      assertMode(mode.name, chunks);
      assert.ok(
        modules.some((u) => u.endsWith('/src/cli/commands/run.js')),
        'the hook saw the CLI modules',
      );
      assert.deepEqual(heavyIn(modules), []);
      assert.ok(!modules.includes('node:tls'), 'no TLS for a control-socket command');
    });
  }
});

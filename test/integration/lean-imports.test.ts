// Issue 12 (fleet-scale performance): a connected minion and `brine run` load only what they use.
// Each process runs with a module-loader hook that records every ES module and every CommonJS
// file it loaded; the master's code, SQLite, the API server, the certificate library and the
// `yaml` package must not be among them.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Cluster, runCli } from '../helpers/cluster.js';

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
const dump = () => writeFileSync(process.env.BRINE_TEST_LOADED + '.cjs', Object.keys(cache).join('\\n'));
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

function loaded(file: string): string[] {
  const read = (f: string): string[] => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter(Boolean) : []);
  return [...read(file), ...read(`${file}.cjs`)];
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

  it('a minion that made its key and certificate and connected has loaded none of the heavy modules', async () => {
    const m = c.startMinion('lean1', {}, env('minion'));
    await m.waitForOutput(/ready to receive requests/, 30_000);
    await new Promise((r) => setTimeout(r, 300));
    const modules = loaded(path.join(c.root, 'minion.loaded'));
    assert.ok(
      modules.some((u) => u.endsWith('/src/minion/minion.js')),
      `the hook saw the minion's modules:\n${modules.slice(0, 5).join('\n')}`,
    );
    const made = fs.readdirSync(path.join(c.root, 'minions', 'lean1'), { recursive: true }).map(String);
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
    const r = await c.brine(['run', 'lean1', 'test.ping', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { lean1: true });
  });

  it('brine run with a target that matches nothing loads neither the master nor yaml, and answers as before', async () => {
    const r = await runCli(['run', '-c', c.masterConfigDir, 'no-such-minion-*', 'test.ping'], { env: env('run') });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim(), 'ERROR: No return received');
    const modules = loaded(path.join(c.root, 'run.loaded'));
    assert.ok(
      modules.some((u) => u.endsWith('/src/cli/commands/run.js')),
      'the hook saw the CLI modules',
    );
    assert.deepEqual(heavyIn(modules), []);
    assert.ok(!modules.includes('node:tls'), 'no TLS for a control-socket command');
  });
});

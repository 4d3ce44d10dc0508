// Issue 27 point 6 (the no-change state run): the job worker is the critical path of a
// `brine call --local state.apply`, and the `yaml` package (~30 ms to load) was required by every
// worker at start through http.query's import. A state run through the real CLI must leave it
// unloaded in the worker thread, and give the same return; http.query still decodes YAML.
// A preloaded hook (NODE_OPTIONS --require runs in every thread) records which thread required it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli } from '../helpers/cluster.js';

const HOOK = `const { threadId } = require('node:worker_threads');
const M = require('node:module');
const load = M._load;
M._load = function (request, ...rest) {
  if (request === 'yaml' || request.startsWith('yaml/')) require('node:fs').appendFileSync(process.env.BRINE_TEST_YAML_LOG, threadId + '\\n');
  return load.call(this, request, ...rest);
};
`;

const SLS = `{% for i in range(3) %}
lean-file-{{ i }}:
  file.managed:
    - name: {{ dest }}/f{{ i }}.conf
    - source: salt://lean/app.conf.j2
    - template: jinja
    - makedirs: True
    - context:
        index: {{ i }}
lean-cmd-{{ i }}:
  cmd.run:
    - name: touch {{ dest }}/m{{ i }}
    - unless: test -e {{ dest }}/m{{ i }}
{% endfor %}
`;

describe('issue 27: a brine call worker loads only what a state run uses', () => {
  let c: Cluster;
  let hook: string;
  let log: string;
  let dest: string;
  let configDir: string;

  before(async () => {
    c = await Cluster.create();
    hook = path.join(c.root, 'yaml-hook.cjs');
    fs.writeFileSync(hook, HOOK);
    log = path.join(c.root, 'yaml.log');
    dest = path.join(c.root, 'out');
    const roots = path.join(c.root, 'srv');
    fs.mkdirSync(path.join(roots, 'lean'), { recursive: true });
    fs.writeFileSync(path.join(roots, 'top.sls'), "base:\n  '*':\n    - lean\n");
    fs.writeFileSync(path.join(roots, 'lean', 'init.sls'), `{% set dest = '${dest}' %}\n${SLS}`);
    fs.writeFileSync(path.join(roots, 'lean', 'app.conf.j2'), 'index = {{ index }}\n');
    c.writeMinionConfig('lean', { file_client: 'local', file_roots: { base: [roots] }, log_level: 'error' });
    configDir = c.minionConfigDir('lean');
  });
  after(async () => {
    await c.cleanup();
  });

  const apply = async (): Promise<Record<string, { result: boolean; changes: Record<string, unknown> }>> => {
    fs.rmSync(log, { force: true });
    const r = await runCli(['call', '--local', '-c', configDir, '--out', 'json', 'state.apply'], { env: { NODE_OPTIONS: `--require ${hook}`, BRINE_TEST_YAML_LOG: log } });
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { local: Record<string, { result: boolean; changes: Record<string, unknown> }> }).local;
  };
  const workerThreadsThatLoadedYaml = (): string[] =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter((t) => t !== '' && t !== '0')
      : [];

  it('a state run (changes, then none) runs its 6 states without the yaml package in the worker', async () => {
    const first = await apply();
    assert.equal(Object.keys(first).length, 6);
    assert.ok(
      Object.values(first).every((s) => s.result === true && Object.keys(s.changes).length > 0),
      JSON.stringify(first),
    );
    assert.ok(fs.existsSync(path.join(dest, 'm2')));
    assert.equal(fs.readFileSync(path.join(dest, 'f1.conf'), 'utf8'), 'index = 1\n');
    assert.deepEqual(workerThreadsThatLoadedYaml(), [], 'a worker thread required yaml');
    const again = await apply();
    assert.ok(
      Object.values(again).every((s) => s.result === true && Object.keys(s.changes).length === 0),
      JSON.stringify(again),
    );
    assert.deepEqual(workerThreadsThatLoadedYaml(), [], 'a worker thread required yaml');
  });

  it('the hook sees a worker that does need yaml (so the check above can fail)', async () => {
    fs.rmSync(log, { force: true });
    // slsutil.deserialize's YAML goes through the full parser in the worker
    const r = await runCli(['call', '--local', '-c', configDir, '--out', 'json', 'slsutil.deserialize', 'yaml', 'a: [1, {b: 2}]'], {
      env: { NODE_OPTIONS: `--require ${hook}`, BRINE_TEST_YAML_LOG: log },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).local, { a: [1, { b: 2 }] });
    assert.ok(workerThreadsThatLoadedYaml().length > 0, 'the hook recorded no worker thread requiring yaml');
  });
});

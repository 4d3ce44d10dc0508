// Start-up warnings of a configuration (issue 22 point 1): a file_roots/pillar_roots directory
// that does not exist and every Salt option brine does not implement are named, never silent.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { configWarnings } from '../../../src/config/start-warnings.js';
import { loadConfig } from '../../../src/config/index.js';
import { configDir } from './helpers.js';

test('a missing file_roots or pillar_roots directory is named, with its environment; an existing one is not; no top.sls anywhere is named', (t) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-warn-'));
  t.after(() => fs.rmSync(d, { recursive: true, force: true }));
  fs.mkdirSync(path.join(d, 'salt'));
  const opts = { file_roots: { base: [path.join(d, 'salt'), path.join(d, 'nosalt')] }, pillar_roots: { prod: [path.join(d, 'nopillar')] } };
  assert.deepEqual(configWarnings(opts, { role: 'master', localTrees: true }), [
    { option: 'file_roots', message: `file_roots directory ${path.join(d, 'nosalt')} (environment base) does not exist: no salt:// files and top.sls will be found there until it is created` },
    {
      option: 'pillar_roots',
      message: `pillar_roots directory ${path.join(d, 'nopillar')} (environment prod) does not exist: no pillar SLS files and top.sls will be found there until it is created`,
    },
    // salt/ exists but has no top.sls: where brine looked is named (Salt says it at debug level only)
    {
      option: 'file_roots',
      message: `no top.sls in any file_roots directory (looked in ${path.join(d, 'salt')}): a highstate (state.apply with no SLS names, state.show_lowstate, state.show_top) finds no states until one is added`,
    },
  ]);
  fs.writeFileSync(path.join(d, 'salt', 'top.sls'), "base:\n  '*': []\n");
  assert.equal(configWarnings(opts, { role: 'master', localTrees: true }).length, 2, 'a top.sls in one root is enough');
  // a minion that asks its master for files does not read its own trees: nothing to warn about
  assert.deepEqual(configWarnings(opts, { role: 'minion', localTrees: false }), []);
  assert.equal(configWarnings(opts, { role: 'minion', localTrees: true }).length, 2);
});

test('each Salt option brine does not implement is named with what is lost; equivalent values and module settings are quiet', (t) => {
  const dir = configDir(t, {
    master: [
      'ext_pillar:\n  - git: [master https://example.org/pillar.git]\n  - mongo: {}\n  - cmd_json: /bin/echo {}',
      'reactor:\n  - "salt/minion/*/start": [/srv/reactor/start.sls]',
      'fileserver_backend: [roots, gitfs, s3fs]',
      'master_job_cache: local_cache',
      'ext_job_cache: mysql',
      'event_return: postgres',
      'mysql.host: db.example.org',
      'pillar_opts: false',
      '',
    ].join('\n'),
  });
  const cfg = loadConfig('master', { configDir: dir, env: {} });
  const w = configWarnings(cfg.opts, { role: 'master', localTrees: true, isDir: () => true, isFile: () => true });
  assert.deepEqual(
    w.map((x) => x.message),
    [
      "option 'ext_job_cache' is a Salt option brine does not implement and is ignored: minions do not send returns to an ext_job_cache returner; use master_job_cache (docs/returners.md)",
      "ext_pillar 'mongo' is not implemented by brine and is skipped: its data is not in any pillar (brine runs cmd_json, cmd_yaml, file_tree, git)",
      "fileserver_backend 's3fs' is not implemented by brine and is ignored: salt:// is served from the roots and gitfs backends only",
    ],
  );
  assert.deepEqual(
    w.map((x) => x.option),
    // reactor and returners are implemented (docs/reactor.md, docs/returners.md): no warning for them
    ['ext_job_cache', 'ext_pillar', 'fileserver_backend'],
  );
});

test('gitfs is a served backend on the master (no warning) but a warning on a minion, whose local files come from file_roots', () => {
  const opts = { fileserver_backend: ['gitfs', 'roots'], gitfs_remotes: ['file:///srv/repo.git'], file_roots: { base: ['/srv/salt'] } };
  // no top.sls in file_roots is no warning either: it may come from git
  assert.deepEqual(configWarnings(opts, { role: 'master', localTrees: false, isDir: () => true, isFile: () => false }), []);
  assert.deepEqual(
    configWarnings(opts, { role: 'minion', localTrees: false }).map((w) => w.message),
    ["fileserver_backend 'gitfs' is served by the master only and is ignored here: a minion with file_client: local reads its own file_roots (the roots backend)"],
  );
});

test("the top-file options in a master config are named: brine's minions read them from their own config (Salt's take the master's)", (t) => {
  const dir = configDir(t, { master: 'top_file_merging_strategy: same\nenv_order: [dev, base]\nfile_roots:\n  base: [/srv/salt]\n' });
  const cfg = loadConfig('master', { configDir: dir, env: {} });
  const w = configWarnings(cfg.opts, { role: 'master', localTrees: true, isDir: () => true, isFile: () => true });
  assert.deepEqual(
    w.map((x) => x.option),
    ['env_order', 'top_file_merging_strategy'],
  );
  assert.match(w[1]!.message, /set it in the minion configuration/);
  const minionDir = configDir(t, { minion: 'top_file_merging_strategy: same\nenv_order: [dev, base]\n' });
  const minion = loadConfig('minion', { configDir: minionDir, env: {} });
  assert.deepEqual(configWarnings(minion.opts, { role: 'minion', localTrees: false }), [], 'a minion reads them: no warning');
  assert.equal(minion.opts.top_file_merging_strategy, 'same');
});

test("ext_pillar in a minion's configuration is named as master-only (a masterless minion does not run it)", (t) => {
  const dir = configDir(t, { minion: 'ext_pillar:\n  - cmd_json: /bin/echo {}\n' });
  const cfg = loadConfig('minion', { configDir: dir, env: {} });
  assert.deepEqual(configWarnings(cfg.opts, { role: 'minion', localTrees: true, isDir: () => true, isFile: () => true }), [
    { option: 'ext_pillar', message: "option 'ext_pillar' is read by the master only and is ignored here: a masterless minion's pillar comes from its pillar_roots" },
  ]);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig, renderConfig } from '../../../src/config/index.js';
import { configDir } from './helpers.js';

test('renderConfig prints every effective option with sorted keys, in YAML and JSON', (t) => {
  const dir = configDir(t, { minion: 'master: [m2, m1]\ngrains: {zeta: 1, alpha: 2}\nmysql.host: db\n' });
  const cfg = loadConfig('minion', { configDir: dir, env: {} });

  const json = renderConfig(cfg, 'json');
  const parsed = JSON.parse(json) as Record<string, unknown>;
  assert.deepEqual(parsed, cfg.opts);
  assert.deepEqual(Object.keys(parsed), Object.keys(cfg.opts).sort());
  assert.deepEqual(Object.keys(parsed.grains as object), ['alpha', 'zeta'], 'nested mappings are sorted too');
  assert.deepEqual(parsed.master, ['m2', 'm1'], 'lists keep their order');

  const yaml = renderConfig(cfg, 'yaml');
  assert.deepEqual(parse(yaml), cfg.opts);
  const topKeys = yaml
    .split('\n')
    .filter((l) => /^[^\s#-]/.test(l))
    .map((l) => l.slice(0, l.indexOf(':')));
  assert.deepEqual(topKeys, [...topKeys].sort());
  assert.ok(topKeys.includes('master_port') && topKeys.includes('mysql.host'));
});

test('renderConfig with sources says where each value came from', (t) => {
  const dir = configDir(t, { minion: 'master_port: 4507\n', 'minion.d/10.conf': 'grains: {a: 1}\n' });
  const cfg = loadConfig('minion', { configDir: dir, env: {} });

  const json = JSON.parse(renderConfig(cfg, 'json', true)) as Record<string, { value: unknown; source: string }>;
  assert.deepEqual(json.master_port, { value: 4507, source: join(dir, 'minion') });
  assert.deepEqual(json.grains, { value: { a: 1 }, source: join(dir, 'minion.d/10.conf') });
  assert.deepEqual(json.master, { value: 'salt', source: 'default' });

  const yaml = renderConfig(cfg, 'yaml', true);
  assert.match(yaml, new RegExp(`^master_port: 4507 # ${join(dir, 'minion')}$`, 'm'));
  assert.match(yaml, /^master: salt # default$/m);
  assert.match(yaml, new RegExp(`^# ${join(dir, 'minion.d/10.conf')}\\ngrains:\\n  a: 1$`, 'm'));
  assert.deepEqual(parse(yaml), cfg.opts, 'the comments do not change the data');
});

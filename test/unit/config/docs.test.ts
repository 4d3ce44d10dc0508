import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPTIONS, REGENERATE_COMMAND, renderConfigurationDoc } from '../../../src/config/index.js';
import { repoRoot } from '../../helpers/repo.js';

// Runs from test/ (tsx) and from dist/test/ (build): find the repository root either way.

test('docs/configuration.md is the generated text (regenerate it when the table changes)', () => {
  const committed = readFileSync(join(repoRoot(), 'docs/configuration.md'), 'utf8');
  assert.ok(committed === renderConfigurationDoc(), `docs/configuration.md is out of date; run: ${REGENERATE_COMMAND}`);
});

test('the generated doc lists every option with its markers', () => {
  const doc = renderConfigurationDoc();
  for (const o of OPTIONS) assert.ok(doc.includes(`| \`${o.name}\` |`), o.name);
  assert.match(doc, /\| `tcp_keepalive_idle` \| number \| `60` s \| \*Salt default: `300`\.\*/);
  assert.match(doc, /\| `heartbeat_interval` \| number \| `10` s \| \*brine only\.\*/);
  assert.match(doc, /\| `master_type` \| `str`, `failover`, `disable` \| `str` \|/);
  assert.match(doc, /\| `pki_dir` \| path \| `\/etc\/brine\/pki\/master` \|/);
  assert.match(doc, /\| `pki_dir` \| path \| `\/etc\/brine\/pki\/minion` \|/);
  assert.match(doc, /\| `autosign_file` \| path \| \*\(unset\)\* \|/);
});

test('every option in the table is documented, unique and consistent', () => {
  const names = OPTIONS.map((o) => o.name);
  assert.equal(new Set(names).size, names.length, 'no duplicate option names');
  for (const o of OPTIONS) {
    assert.ok(o.doc.length > 10 && !o.doc.includes('\n'), `${o.name}: one-sentence doc`);
    assert.ok(o.roles.length > 0, `${o.name}: has a role`);
    assert.equal(o.type === 'enum', o.values !== undefined, `${o.name}: values iff enum`);
  }
});

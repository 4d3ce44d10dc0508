// docs/targeting.md lists every target type with a section and a `brine run` example using its
// flag, and every example target there is one brine accepts (no stale syntax in the docs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TARGET_TYPES } from '../../../src/protocol/index.js';
import { matchTarget, type TargetType } from '../../../src/targeting/index.js';
import { readDoc, sections } from '../docs/markdown.js';

const doc = readDoc('targeting.md');
const FLAG = new Map<string, string | undefined>([
  ['glob', undefined],
  ['pcre', '-E'],
  ['list', '-L'],
  ['grain', '-G'],
  ['grain_pcre', '-P'],
  ['ipcidr', '-S'],
  ['compound', '-C'],
  ['nodegroup', '-N'],
  ['pillar', '-I'],
  ['pillar_pcre', '-J'],
  ['pillar_exact', '--pillar-exact'],
]);

test('every target type has a section with a brine run example', () => {
  const bySection = new Map(sections(doc, 2).map((s) => [s.title.split(' ')[0]!, s.body]));
  for (const type of TARGET_TYPES) {
    const body = bySection.get(type);
    assert.ok(body, `no "## ${type}" section`);
    const flag = FLAG.get(type);
    const examples = body.split('\n').filter((l) => l.startsWith('brine run ') && (flag === undefined ? !/ -[A-Z] /.test(l) : l.includes(` ${flag} `)));
    assert.ok(examples.length > 0, `no example for ${type}`);
  }
});

test('the example targets in the docs parse', () => {
  const groups = { webservers: 'G@roles:web', dbs: 'G@roles:db', backends: 'N@dbs or L@cache1,cache2' };
  for (const line of doc.split('\n').filter((l) => l.startsWith('brine run '))) {
    const m = /^brine run (?:(-[EGLPSCNIJ]|--pillar-exact) )?'?([^']*?)'?(?: --delimiter '(.)')? (test\.ping)/.exec(line.replace(/^brine run '([^']+)'/, "brine run '$1'"));
    assert.ok(m, line);
    const type = [...FLAG].find(([, f]) => f === (m[1] ?? undefined))![0] as TargetType;
    const opts = { nodegroups: groups, ...(m[3] ? { delimiter: m[3] } : {}) };
    assert.doesNotThrow(() => matchTarget(m[2]!, type, ['web1'], opts), line);
  }
});

// docs/states.md's state function reference is generated from the declarations: the committed
// page must hold exactly the generated text, and the generator must render what a function
// declares (doc line, argument table, example).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  builtinStateFunctions,
  defineState,
  generatedPart,
  REGENERATE_STATES_DOC_COMMAND,
  renderStateFunctions,
  spliceStatesDoc,
  STATES_DOC_BEGIN,
  STATES_DOC_END,
  type StateFunction,
} from '../../../src/state/index.js';
import { repoRoot } from '../../helpers/repo.js';

const managed = defineState({
  name: 'sample.managed',
  doc: 'Make sure a sample file has the given contents.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'Absolute path of the file.' },
    { name: 'contents', type: 'string', doc: 'The text | with a pipe\nand a line break.' },
    { name: 'mode', type: 'string', default: '0644', doc: 'Permissions, octal.' },
    { name: 'makedirs', type: 'bool', default: false },
    { name: 'source', type: 'list', default: [] },
  ],
  example: '/etc/motd:\n  sample.managed:\n    - contents: hello\n',
  run: async (_ctx, args) => ({ name: args.named.name, result: true, changes: {}, comment: '' }),
});

const absent = defineState({
  name: 'another.absent',
  doc: 'Make sure a thing is gone.',
  params: [],
  kwargs: true,
  example: 'gone:\n  another.absent: []',
  run: async () => ({ name: 'gone', result: true, changes: {}, comment: '' }),
  modWatch: async () => ({ name: 'gone', result: true, changes: {}, comment: '' }),
});

test('the generator renders a section per function, sorted, with its doc line, argument table and example', () => {
  const text = renderStateFunctions([managed, absent]);
  assert.ok(text.startsWith(`${STATES_DOC_BEGIN}\n`) && text.endsWith(STATES_DOC_END));
  assert.ok(text.indexOf('### another.absent') < text.indexOf('### sample.managed'), 'sorted by name');
  assert.match(text, /^- \*\*another\*\*: \[another\.absent\]\(#anotherabsent\)$/m);
  const section = text.slice(text.indexOf('### sample.managed'));
  assert.ok(section.startsWith('### sample.managed\n\nMake sure a sample file has the given contents.\n\n| argument | type | default | required | meaning |\n|---|---|---|---|---|\n'));
  assert.match(section, /^\| `name` \| string \| {2}\| yes \| Absolute path of the file\. \|$/m);
  assert.match(section, /^\| `contents` \| string \| {2}\| no \| The text \\\| with a pipe and a line break\. \|$/m, 'a pipe is escaped and a line break joined');
  assert.match(section, /^\| `mode` \| string \| `0644` \| no \| Permissions, octal\. \|$/m);
  assert.match(section, /^\| `makedirs` \| bool \| `false` \| no \| {2}\|$/m);
  assert.match(section, /^\| `source` \| list \| `\[\]` \| no \| {2}\|$/m);
  assert.ok(section.includes('```yaml\n/etc/motd:\n  sample.managed:\n    - contents: hello\n```\n'), 'the example without its trailing newline');
  const other = text.slice(text.indexOf('### another.absent'), text.indexOf('### sample.managed'));
  assert.match(other, /No arguments of its own\./);
  assert.match(other, /Further `key: value` arguments are accepted/);
  assert.match(other, /Has a `mod_watch`/);
});

test('splicing replaces only the generated part and refuses a page without the markers', () => {
  const page = `# States\n\nintro\n\n${STATES_DOC_BEGIN}\nstale\n${STATES_DOC_END}\n\n## After\n`;
  const spliced = spliceStatesDoc(page, [managed]);
  assert.ok(spliced.startsWith('# States\n\nintro\n\n'));
  assert.ok(spliced.endsWith(`${STATES_DOC_END}\n\n## After\n`));
  assert.doesNotMatch(spliced, /stale/);
  assert.equal(generatedPart(spliced), renderStateFunctions([managed]));
  assert.throws(() => spliceStatesDoc('# States\n', [managed]), /must contain '<!-- BEGIN generated state functions -->'/);
});

test('docs/states.md holds the generated reference of every built-in state function', () => {
  const committed = readFileSync(join(repoRoot(), 'docs/states.md'), 'utf8');
  const part = generatedPart(committed);
  assert.ok(part !== undefined, `docs/states.md lost its markers (${STATES_DOC_BEGIN} ... ${STATES_DOC_END})`);
  assert.ok(part === renderStateFunctions(builtinStateFunctions), `docs/states.md is out of date; run: ${REGENERATE_STATES_DOC_COMMAND}`);
});

test('every built-in state function has a one-line doc and an example that uses it', () => {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const fn of builtinStateFunctions as readonly StateFunction[]) {
    if (names.has(fn.name)) problems.push(`${fn.name}: registered twice`);
    names.add(fn.name);
    if (!/^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/.test(fn.name)) problems.push(`${fn.name}: not module.function`);
    if (fn.doc.trim() === '' || fn.doc.includes('\n')) problems.push(`${fn.name}: the doc must be one line`);
    if (!fn.example.includes(fn.name) && !fn.example.includes(`${fn.name.split('.')[0]}:`)) problems.push(`${fn.name}: the example does not use it`);
  }
  assert.deepEqual(problems, []);
});

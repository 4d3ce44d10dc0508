// Keeps docs/protocol.md in step with the message allow-lists: every message type of each
// direction has a section there (and no section names a type that is gone), each section's JSON
// example passes the real schema, and its field table matches the example and the schema's
// required fields.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONTROL_REPLIES, CONTROL_REQUESTS, MASTER_MESSAGES, MINION_CONTROL_REPLIES, MINION_CONTROL_REQUESTS, MINION_MESSAGES, type Schema } from '../../../src/protocol/index.js';
import { codeSpan, fencedBlocks, readDoc, section, sections, tableRows } from './markdown.js';

const doc = readDoc('protocol.md');

const DIRECTIONS: ReadonlyArray<{ parent: string; title: string; schemas: ReadonlyMap<string, Schema<unknown>> }> = [
  { parent: 'Minion ↔ master messages', title: 'Minion to master', schemas: MINION_MESSAGES },
  { parent: 'Minion ↔ master messages', title: 'Master to minion', schemas: MASTER_MESSAGES },
  { parent: 'The control socket', title: 'CLI to master (requests)', schemas: CONTROL_REQUESTS },
  { parent: 'The control socket', title: 'Master to CLI (replies)', schemas: CONTROL_REPLIES },
  { parent: 'The minion control socket', title: 'Doctor to minion (requests)', schemas: MINION_CONTROL_REQUESTS },
  { parent: 'The minion control socket', title: 'Minion to doctor (replies)', schemas: MINION_CONTROL_REPLIES },
];

interface MessageDoc {
  type: string;
  fields: Array<{ name: string; required: string }>;
  examples: string[];
}

function messagesOf(parent: string, title: string): MessageDoc[] {
  const direction = section(section(doc, 2, parent).body, 3, title);
  return sections(direction.body, 4).map((s) => ({
    type: codeSpan(s.title) ?? s.title,
    fields: tableRows(s.body).map((cells) => ({ name: codeSpan(cells[0] ?? '') ?? cells[0] ?? '', required: cells[2] ?? '' })),
    examples: fencedBlocks(s.body, 'json'),
  }));
}

for (const dir of DIRECTIONS) {
  describe(`docs/protocol.md: ${dir.title}`, () => {
    const documented = messagesOf(dir.parent, dir.title);

    it('has one section per message type in the allow-list, and no others', () => {
      assert.deepEqual(documented.map((m) => m.type).sort(), [...dir.schemas.keys()].sort());
    });

    for (const message of documented) {
      const schema = dir.schemas.get(message.type);
      if (!schema) continue;

      it(`the "${message.type}" example is a valid message of that type`, () => {
        assert.equal(message.examples.length, 1, 'one json example per message');
        const example = JSON.parse(message.examples[0]!) as Record<string, unknown>;
        assert.equal(example.t, message.type);
        assert.equal(schema.check(example, 'message'), undefined);
      });

      it(`the "${message.type}" field table matches its example and the schema`, () => {
        const example = JSON.parse(message.examples[0]!) as Record<string, unknown>;
        // the examples show every field, so the table and the example must name the same ones
        assert.deepEqual(message.fields.map((f) => f.name).sort(), Object.keys(example).sort());
        for (const field of message.fields) {
          assert.ok(field.required === 'yes' || field.required === 'no', `${field.name}: Required must be yes or no`);
          const without = { ...example };
          delete without[field.name];
          const problem = schema.check(without, 'message');
          if (field.required === 'yes') assert.ok(problem !== undefined, `${message.type}.${field.name} is documented as required but the schema accepts a message without it`);
          else assert.equal(problem, undefined, `${message.type}.${field.name} is documented as optional but the schema requires it`);
        }
      });
    }
  });
}

describe('docs/protocol.md: overall', () => {
  it('names every message type of every direction as a heading', () => {
    const headings = new Set(sections(doc, 4).map((s) => codeSpan(s.title)));
    for (const dir of DIRECTIONS) for (const type of dir.schemas.keys()) assert.ok(headings.has(type), `no heading for ${type}`);
  });
});

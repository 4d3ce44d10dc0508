// Each system state's `example` (docs/states.md is generated from them) is valid SLS: YAML whose
// states name this function, with only arguments the function declares (or Salt's requisites
// and global arguments, which the runtime handles).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { systemStateFunctions } from '../../../src/state/modules/system-states.js';

const RUNTIME_ARGS = new Set(['require', 'watch', 'onchanges', 'onfail', 'prereq', 'use', 'require_in', 'watch_in', 'unless', 'onlyif', 'creates', 'order', 'names', 'retry', 'failhard', 'check_cmd']);

describe('system state examples', () => {
  for (const fn of systemStateFunctions) {
    it(`${fn.name}: the example is SLS using only declared arguments`, () => {
      const sls = parse(fn.example) as Record<string, Record<string, unknown>>;
      let uses = 0;
      for (const [id, body] of Object.entries(sls)) {
        for (const [key, args] of Object.entries(body)) {
          if (key !== fn.name) continue;
          uses += 1;
          assert.ok(Array.isArray(args), `${id}: ${key} takes a list`);
          for (const item of args as unknown[]) {
            const k = Object.keys(item as object)[0]!;
            if (RUNTIME_ARGS.has(k) || fn.kwargs) continue;
            assert.ok(
              fn.params.some((p) => p.name === k),
              `${id}: '${k}' is not an argument of ${fn.name}`,
            );
          }
        }
      }
      assert.ok(uses > 0, `the example of ${fn.name} does not use it`);
      assert.ok(fn.doc.trim() !== '' && !fn.doc.includes('\n'));
    });
  }
});

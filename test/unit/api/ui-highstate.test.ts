// The web view's highstate rendering decisions (src/api/ui/static/highstate.js, nested.js; browser
// modules that touch the DOM only when drawing): which returns are state runs, each state's
// colour class as Salt's highstate outputter colours it, the summary line, and the readable tree
// for everything else (True/False/None as Salt prints them).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { uiAssetDir } from '../../../src/api/ui/index.js';

interface Highstate {
  isHighstate(ret: unknown): boolean;
  stateClass(chunk: Record<string, unknown>): string;
  summarize(ret: Record<string, unknown>): { succeeded: number; failed: number; changed: number; pending: number; total: number; durationMs: number };
  summaryText(s: ReturnType<Highstate['summarize']>): string;
}

const load = async <T>(name: string): Promise<T> => (await import(pathToFileURL(path.join(uiAssetDir(), name)).href)) as T;

const RUN = {
  'file_|-motd_|-/etc/motd_|-managed': { result: true, changes: { diff: '-a\n+b' }, comment: 'File /etc/motd updated', duration: 1.5, __run_num__: 0 },
  'cmd_|-fails_|-exit 3_|-run': { result: false, changes: { retcode: 3 }, comment: 'Command "exit 3" run', duration: 2.25, __run_num__: 1 },
  'test_|-fine_|-fine_|-succeed_without_changes': { result: true, changes: {}, comment: 'Success!', duration: '0.25', __run_num__: 2 },
  'pkg_|-later_|-nginx_|-installed': { result: null, changes: { nginx: { new: '1.2', old: '' } }, comment: 'would install', duration: 0, __run_num__: 3 },
};

describe('the web view renders state runs as the highstate outputter', () => {
  it('recognises a state run by its chunk keys and results; other returns are not', async () => {
    const h = await load<Highstate>('highstate.js');
    assert.equal(h.isHighstate(RUN), true);
    for (const other of [true, 'text', [], {}, { result: true }, { 'a_|-b_|-c_|-d': 'x' }, ['render error']]) assert.equal(h.isHighstate(other), false, JSON.stringify(other));
  });

  it('colours: ok (True, no changes), changed (True with changes), failed (False), pending (None)', async () => {
    const h = await load<Highstate>('highstate.js');
    const classes = Object.values(RUN).map((c) => h.stateClass(c));
    assert.deepEqual(classes, ['changed', 'failed', 'ok', 'pending']);
  });

  it('summarises succeeded, changed, failed, would-change and the total run time', async () => {
    const h = await load<Highstate>('highstate.js');
    const s = h.summarize(RUN);
    assert.deepEqual(s, { succeeded: 3, failed: 1, changed: 2, pending: 1, total: 4, durationMs: 4 });
    assert.equal(h.summaryText(s), '3 succeeded (2 changed), 1 failed, 1 would change (test); 4 states in 4.000 ms');
  });

  it('shows other returns as a readable tree', async () => {
    const { nested } = await load<{ nested(v: unknown): string }>('nested.js');
    assert.equal(nested(true), 'True');
    assert.equal(nested(null), 'None');
    assert.equal(nested('<b>as is</b>'), '<b>as is</b>');
    assert.equal(
      nested({ os: 'Debian', ipv4: ['127.0.0.1', '10.0.0.2'], mem: { total: 2048, swap: false }, empty: {} }),
      'os: Debian\nipv4:\n    - 127.0.0.1\n    - 10.0.0.2\nmem:\n    total: 2048\n    swap: False\nempty:\n    {}',
    );
    assert.equal(nested({ out: 'line 1\nline 2' }), 'out:\n    line 1\n    line 2');
  });
});

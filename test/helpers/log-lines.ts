// Reading brine's text log lines in tests (`2026-01-02 03:04:05.678 [name][INFO    ] msg`).

import assert from 'node:assert/strict';

/** Epoch ms of a text log line, or of its bare `YYYY-MM-DD HH:MM:SS.mmm` stamp; fails on anything else. */
export function logTime(line: string): number {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(line);
  assert.ok(m, `a timestamped log line: ${line}`);
  return Date.parse(`${m[1]}T${m[2]}Z`);
}

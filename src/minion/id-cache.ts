// The minion_id cache file: Salt reads only its first line (BOM stripped), so brine keeps that
// line Salt-compatible and records the machine it was written on in a second line.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pyLines, pyStrip } from './py-text.js';
import { errorMessage } from '../util/errors.js';

export const MINION_ID_FILE = 'minion_id';
const MACHINE_PREFIX = 'machine_id:';

export interface CachedId {
  /** The first line as Salt reads it: stripped, then one leading BOM removed. May be empty. */
  value: string;
  /** The machine id recorded by brine, when the file has one. */
  machineId?: string;
}

/** Reads the cache; undefined when the file is missing or unreadable (Salt ignores both). */
export function readIdCache(file: string): CachedId | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const lines = pyLines(text);
  // Salt strips first and removes the BOM after, so a space after a BOM survives
  const value = pyStrip(lines[0] ?? '').replace(/^\uFEFF/, '');
  const cached: CachedId = { value };
  for (const line of lines.slice(1)) {
    const t = pyStrip(line);
    if (t.startsWith(MACHINE_PREFIX)) {
      const id = pyStrip(t.slice(MACHINE_PREFIX.length));
      if (id) cached.machineId = id;
    }
  }
  return cached;
}

/** Writes the cache (creating parent directories); returns the error message instead of throwing, as Salt logs and carries on. */
export function writeIdCache(file: string, id: string, machineId: string | undefined): string | undefined {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const body = machineId ? `${id}\n${MACHINE_PREFIX} ${machineId}\n` : `${id}\n`;
    fs.writeFileSync(file, body, { mode: 0o644 });
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

// Where schedule.* changes survive a restart: `<config_dir>/minion.d/_schedule.conf`, as Salt
// keeps them. The config loader reads minion.d after the main file, so at the next start this
// file's `schedule:` (every non-pillar job, written whole) is the minion's schedule.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { yamlPackage } from '../util/yaml-package.js';
import { BrineError, errorMessage } from '../util/errors.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { loadConfig } from '../config/load.js';

export const SCHEDULE_FILE = '_schedule.conf';

export function scheduleFilePath(configDir: string): string {
  return path.join(configDir, 'minion.d', SCHEDULE_FILE);
}

const HEADER = '# Written by brine schedule.* functions (schedule.add, delete, modify, enable_job, ...).\n# It replaces the schedule of the main minion file; edit it with schedule.* or remove it.\n';

/** Writes the whole non-pillar schedule; SCHEDULE_SAVE_FAILED says why it could not. */
export function writeScheduleFile(configDir: string, schedule: Record<string, unknown>): void {
  const file = scheduleFilePath(configDir);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    writeFileAtomicSync(file, HEADER + yamlPackage().stringify({ schedule }), 0o600);
  } catch (err) {
    throw new BrineError(
      'SCHEDULE_SAVE_FAILED',
      `cannot save the schedule to ${file}: ${errorMessage(err)}; the change is in effect until the minion restarts. Make ${path.dirname(file)} writable by the minion's user`,
      { cause: err },
    );
  }
}

/** The schedule as the minion would read it at start (main file, then minion.d): schedule.reload. */
export function readConfiguredSchedule(configDir: string): unknown {
  return loadConfig('minion', { configDir }).opts.schedule;
}

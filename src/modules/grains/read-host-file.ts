// Reading one host file for a grain: a file that is missing or unreadable (some /sys files are
// root-only) is undefined, and the grain that needs it is left out or takes Salt's default.

import { readFileSync } from 'node:fs';

export function readHostFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

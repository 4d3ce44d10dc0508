// The repository root (the directory holding package.json), found from a test file whether it
// runs from source (tsx) or from the compiled dist/ tree.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('package.json not found above the test file');
    dir = up;
  }
  return dir;
}

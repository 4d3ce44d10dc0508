// A file server backend (Salt's fileserver_backend entries: roots, gitfs) and their
// combination in configured order: the first backend that has a file serves it, and the
// environments and listings are the union of all backends, as Salt's fileserver does.

import type { FoundFile } from './roots.js';

export interface FileBackend {
  /** The fileserver_backend name (roots, gitfs). */
  readonly name: string;
  envs(): string[];
  /** The file, or undefined; PATH_REFUSED for a bad path or a symlink leading out of its tree. */
  find(saltenv: string, relPath: string): FoundFile | undefined;
  list(saltenv: string, prefix: string, kind: 'files' | 'dirs'): string[];
}

export class FileBackends implements FileBackend {
  readonly name = 'fileserver';

  constructor(readonly backends: readonly FileBackend[]) {}

  envs(): string[] {
    return [...new Set(this.backends.flatMap((b) => b.envs()))].sort();
  }

  find(saltenv: string, relPath: string): FoundFile | undefined {
    for (const b of this.backends) {
      const found = b.find(saltenv, relPath);
      if (found) return found;
    }
    return undefined;
  }

  list(saltenv: string, prefix: string, kind: 'files' | 'dirs'): string[] {
    if (this.backends.length === 1) return this.backends[0]!.list(saltenv, prefix, kind);
    return [...new Set(this.backends.flatMap((b) => b.list(saltenv, prefix, kind)))].sort();
  }
}

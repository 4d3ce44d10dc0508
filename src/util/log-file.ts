// The daemon's log_file: lines appended with synchronous writes (so a crash loses nothing that
// was logged), reopened on request so logrotate can rename the file and send SIGHUP.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrineError, errorMessage } from './errors.js';

export class LogFile {
  private fd: number | undefined;
  /** The first directory brine created for the file, if it created any. */
  private createdDir: string | undefined;

  private constructor(readonly file: string) {}

  /** Opens (creating it 0600, and its directory 0750) or throws LOG_FILE_UNWRITABLE naming the file. */
  static open(file: string): LogFile {
    const log = new LogFile(file);
    log.fd = log.openFd();
    return log;
  }

  write(line: string): void {
    if (this.fd === undefined) return;
    try {
      fs.writeSync(this.fd, line);
    } catch {
      // a full disk must not stop the daemon; stderr still gets every line
    }
  }

  /**
   * Closes and opens the path again: after logrotate renamed the file, new lines go to a new file
   * at the configured path. If that fails, the old descriptor stays in use and the error is thrown.
   */
  reopen(): void {
    const next = this.openFd();
    const old = this.fd;
    this.fd = next;
    if (old !== undefined) fs.closeSync(old);
  }

  /** The file and the directories brine created for it: what a daemon switching to `user:` hands over. */
  ownedPaths(): string[] {
    const out = [this.file];
    if (this.createdDir === undefined) return out;
    for (let dir = path.dirname(this.file); ; dir = path.dirname(dir)) {
      out.push(dir);
      if (dir === this.createdDir || dir === path.dirname(dir)) break;
    }
    return out;
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  private openFd(): number {
    try {
      this.createdDir ??= fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o750 });
      return fs.openSync(this.file, 'a', 0o600);
    } catch (err) {
      throw new BrineError('LOG_FILE_UNWRITABLE', `cannot open log_file ${this.file}: ${errorMessage(err)}`, { cause: err, details: { file: this.file } });
    }
  }
}

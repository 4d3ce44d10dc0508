// The `file` state module: every file state function, in Salt's documentation order.

import type { StateFunction } from '../types.js';
import { fileAbsent } from './file-absent.js';
import { fileAppend } from './file-append.js';
import { fileBlockreplace } from './file-blockreplace.js';
import { fileCopy } from './file-copy.js';
import { fileDirectory } from './file-directory.js';
import { fileExists, fileMissing } from './file-exists.js';
import { fileLine } from './file-line.js';
import { fileManaged } from './file-managed.js';
import { filePrepend } from './file-prepend.js';
import { fileRecurse } from './file-recurse.js';
import { fileRename } from './file-rename.js';
import { fileReplace } from './file-replace.js';
import { fileSymlink } from './file-symlink.js';
import { fileTouch } from './file-touch.js';

export const fileStateFunctions: readonly StateFunction[] = [
  fileAbsent,
  fileAppend,
  fileBlockreplace,
  fileCopy,
  fileDirectory,
  fileExists,
  fileLine,
  fileManaged,
  fileMissing,
  filePrepend,
  fileRecurse,
  fileRename,
  fileReplace,
  fileSymlink,
  fileTouch,
];

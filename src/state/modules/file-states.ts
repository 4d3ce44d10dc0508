// The `file` state module: every file state function, in Salt's documentation order.

import type { StateFunction } from '../types.js';
import { fileAbsent } from './file-absent.js';
import { fileAccumulated } from './file-accumulated.js';
import { fileAppend } from './file-append.js';
import { fileBlockreplace } from './file-blockreplace.js';
import { fileComment, fileUncomment } from './file-comment.js';
import { fileCopy } from './file-copy.js';
import { fileDirectory } from './file-directory.js';
import { fileKeyvalue } from './file-keyvalue.js';
import { fileExists, fileMissing } from './file-exists.js';
import { fileLine } from './file-line.js';
import { fileManaged } from './file-managed.js';
import { filePrepend } from './file-prepend.js';
import { fileRecurse } from './file-recurse.js';
import { fileRename } from './file-rename.js';
import { fileReplace } from './file-replace.js';
import { fileSerialize } from './file-serialize.js';
import { fileSymlink } from './file-symlink.js';
import { fileTouch } from './file-touch.js';

export const fileStateFunctions: readonly StateFunction[] = [
  fileAbsent,
  fileAccumulated,
  fileAppend,
  fileBlockreplace,
  fileComment,
  fileCopy,
  fileDirectory,
  fileKeyvalue,
  fileExists,
  fileLine,
  fileManaged,
  fileMissing,
  filePrepend,
  fileRecurse,
  fileRename,
  fileReplace,
  fileSerialize,
  fileSymlink,
  fileTouch,
  fileUncomment,
];

// Every built-in state function, registered explicitly (one file per state module).

import type { StateFunction } from '../types.js';
import { aliasStates } from './alias-states.js';
import { archiveExtracted } from './archive-extracted.js';
import { environSetenv } from './environ-setenv.js';
import { externalStateFunctions } from './external/index.js';
import { fileStateFunctions } from './file-states.js';
import { gemInstalled } from './gem-installed.js';
import { gemRemovalStates } from './gem-removed.js';
import { gitStates } from './git-states.js';
import { hostStates } from './host-states.js';
import { iniStates } from './ini-states.js';
import { npmInstalled, npmRemoved } from './npm-installed.js';
import { pythonStates } from './python-states.js';
import { sshStates } from './ssh-states.js';
import { stateconfStates } from './stateconf-states.js';
import { supervisordDead, supervisordRunning } from './supervisord-running.js';
import { systemStateFunctions } from './system-states.js';
import { testStateFunctions } from './test-states.js';

export const builtinStateFunctions: readonly StateFunction[] = [
  ...testStateFunctions,
  ...fileStateFunctions,
  archiveExtracted,
  ...systemStateFunctions,
  ...gitStates,
  ...pythonStates,
  ...sshStates,
  ...stateconfStates,
  ...hostStates,
  ...iniStates,
  ...aliasStates,
  environSetenv,
  npmInstalled,
  npmRemoved,
  gemInstalled,
  ...gemRemovalStates,
  supervisordRunning,
  supervisordDead,
  ...externalStateFunctions,
];

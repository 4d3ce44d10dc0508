// The Python packaging state modules (pip.installed, virtualenv.managed), each failing softly: an
// error thrown at run time fails that state only.

import type { StateFunction } from '../types.js';
import { pipInstalled } from './pip-installed.js';
import { failingSoftly } from './state-result.js';
import { virtualenvManaged } from './virtualenv-managed.js';

export const pythonStates: readonly StateFunction[] = [pipInstalled, virtualenvManaged].map(failingSoftly);

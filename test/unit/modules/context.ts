// Builds an ExecContext for module tests.

import type { ExecContext, Grains } from '../../../src/modules/index.js';

export function makeCtx(over: Partial<ExecContext> & { grainsData?: Grains } = {}): ExecContext {
  const grainsData = over.grainsData ?? { id: 'web1', os: 'Debian' };
  return {
    grains: over.grains ?? (() => grainsData),
    minionId: over.minionId ?? 'web1',
    config: over.config ?? {},
    signal: over.signal ?? new AbortController().signal,
    jid: over.jid ?? '20240101000000000000',
    ...(over.pillar ? { pillar: over.pillar } : {}),
    ...(over.files ? { files: over.files } : {}),
    ...(over.stateProgress ? { stateProgress: over.stateProgress } : {}),
  };
}

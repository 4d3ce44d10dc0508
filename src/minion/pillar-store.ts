// The minion's current pillar: the last good pillar its master rendered for it (or its own
// pillar_roots when masterless), as one in-memory value that the job runner, the mine and the
// scheduler read, and that tells them when it changed (e.g. a new `schedule` or `mine_functions`).
// Never logged: pillar is often secret.

export type Pillar = Readonly<Record<string, unknown>>;

export type PillarListener = (pillar: Pillar, previous: Pillar) => void;

export class PillarStore {
  private current: Pillar = {};
  private readonly listeners = new Set<PillarListener>();

  /** The current pillar (an empty mapping until the first one arrives). */
  get(): Pillar {
    return this.current;
  }

  /** Replaces the pillar and tells every listener; a listener that throws does not stop the others. */
  set(pillar: Pillar): void {
    const previous = this.current;
    this.current = pillar;
    for (const listener of this.listeners) {
      try {
        listener(pillar, previous);
      } catch {
        // a listener reports its own failures; the store must stay consistent for the others
      }
    }
  }

  /** Calls `listener` after every change; returns the function that removes it. */
  onChange(listener: PillarListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

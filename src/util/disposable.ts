// Every resource has one owner and a dispose; a DisposableStore lets an owner release all of
// its timers, listeners and sockets in one idempotent call.

export interface Disposable {
  dispose(): void;
}

export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

export class DisposableStore implements Disposable {
  private items: Disposable[] = [];
  private disposed = false;

  add<T extends Disposable>(item: T): T {
    if (this.disposed) item.dispose();
    else this.items.push(item);
    return item;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const items = this.items.reverse();
    this.items = [];
    for (const item of items) {
      try {
        item.dispose();
      } catch {
        // a failing dispose must not keep the others alive
      }
    }
  }
}

/** Adds a listener to an EventEmitter-like object and returns its removal. */
export function listen<A extends unknown[]>(
  emitter: { on(event: string, fn: (...args: A) => void): unknown; off(event: string, fn: (...args: A) => void): unknown },
  event: string,
  fn: (...args: A) => void,
): Disposable {
  emitter.on(event, fn);
  return toDisposable(() => emitter.off(event, fn));
}

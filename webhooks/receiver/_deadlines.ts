// Deadlines of equal length, such as a receiver's body timeout: they end in
// the order they began, so one timer, armed for the oldest still running,
// serves them all. Starting or ending one costs no timer operation (a timer
// per request was a few percent of a busy receiver's main thread): the timer
// stays armed when the last deadline ends, fires once for nothing, and is
// armed again only when a deadline is running then. It is unref'd, so it
// never keeps a process alive.

const NOTHING = (): void => {};

interface Entry {
  at: number;
  expire: () => void;
  over: boolean;
}

/** A queue of deadlines, each `ms` from its start. */
export class Deadlines {
  #ms: number;
  #queue: Entry[] = [];
  #head = 0;
  #armed = false;

  constructor(ms: number) {
    this.#ms = ms;
  }

  /** Calls `expire` once `ms` have passed, unless the function returned is called first. */
  start(expire: () => void): () => void {
    const entry: Entry = { at: performance.now() + this.#ms, expire, over: false };
    this.#queue.push(entry);
    if (!this.#armed) this.#arm(entry.at);
    return () => {
      entry.over = true;
      // What `expire` holds (a request's reader, a pending promise) goes now, not when the queue moves past it.
      entry.expire = NOTHING;
      if (entry === this.#queue[this.#head]) this.#drop();
    };
  }

  /** Drops ended deadlines from the head of the queue. */
  #drop(): void {
    const queue = this.#queue;
    while (this.#head < queue.length && queue[this.#head].over) this.#head++;
    if (this.#head === queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > queue.length) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
  }

  #arm(at: number): void {
    this.#armed = true;
    const timer = setTimeout(() => this.#fire(), Math.max(0, at - performance.now()));
    (timer as unknown as { unref?: () => void }).unref?.();
  }

  #fire(): void {
    this.#armed = false;
    const now = performance.now();
    while (this.#head < this.#queue.length) {
      const entry = this.#queue[this.#head];
      if (!entry.over && entry.at > now) break;
      this.#head++;
      if (!entry.over) {
        entry.over = true;
        entry.expire();
      }
    }
    this.#drop();
    const next = this.#queue[this.#head];
    if (next) this.#arm(next.at);
  }
}

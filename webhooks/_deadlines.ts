// Deadlines of equal length, such as a receiver's body timeout: they end in
// the order they began, so one timer, armed for the oldest still running,
// serves them all. Starting or ending one costs no timer of its own (a timer
// per request was a few percent of a busy receiver's main thread), and none
// is left armed once every deadline has ended.

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
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedFor = Infinity;

  constructor(ms: number) {
    this.#ms = ms;
  }

  /** Calls `expire` once `ms` have passed, unless the function returned is called first. */
  start(expire: () => void): () => void {
    const entry: Entry = { at: performance.now() + this.#ms, expire, over: false };
    this.#queue.push(entry);
    if (this.#timer === undefined) this.#arm();
    return () => {
      if (entry.over) return;
      entry.over = true;
      if (entry === this.#queue[this.#head]) this.#settle();
    };
  }

  /** Drops ended deadlines from the head; stops the timer when none runs, else keeps it for the oldest. */
  #settle(): void {
    while (this.#head < this.#queue.length && this.#queue[this.#head].over) this.#head++;
    if (this.#head === this.#queue.length) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#armedFor = Infinity;
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    // A timer armed for a deadline that ended fires early: it finds the next one running and waits on.
  }

  #arm(): void {
    const next = this.#queue[this.#head];
    if (next === undefined) return;
    if (this.#timer !== undefined && this.#armedFor <= next.at) return;
    clearTimeout(this.#timer);
    this.#armedFor = next.at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, next.at - performance.now()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
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
    this.#settle();
    this.#arm();
  }
}

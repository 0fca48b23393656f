// How many groups a remote KV has in flight at once, learnt from the time its
// jobs take (submit to result). Which number is best depends on the link, not
// on the code:
//
// - Where a commit over about 1 KiB waits for a delayed acknowledgement (a
//   server on Linux without `quickack`, with Deno's client sending the body
//   after its headers: 40 ms a commit), postbacks do best each in a commit
//   of its own, many in flight: a shared commit waits the 40 ms.
// - Where it does not, few groups in flight do best: postbacks share
//   commits, and the server does one commit's work for several.
//
// So the cap climbs the hill: it starts at 16 (best with the stall, measured
// in docs/scale-out.md), and every few windows of jobs it tries a
// neighbour for one window: half, or double when jobs waited for the cap
// (with fewer jobs at once than the cap, a higher one changes nothing). A
// window is at least 128 jobs, or eight per group in flight: over 64, on a
// machine shared with other work, the means of one cap were 40% apart. It
// moves when that window took clearly less time on average, and goes back
// otherwise, trying less often after each try that did not pay. A move
// stands only if the next window at the new cap is also clearly faster than
// the old cap, so one lucky window does not move it. Under a load the KV
// meets at once, every cap measures alike and the cap stays. A window counts
// only the jobs submitted under the cap it measures.

/** The cap a remote KV starts at: best where shared commits stall (docs/scale-out.md). */
export const REMOTE_IN_FLIGHT = 16;
/** The bounds of the cap. */
export const MIN_IN_FLIGHT = 1;
export const MAX_IN_FLIGHT = 64;
/**
 * Windows at the current cap between two tries of a neighbour: two after a
 * move, doubling after each try that did not pay (a try costs its window),
 * up to 32.
 */
const FIRST_GAP = 2;
const LAST_GAP = 32;
/** A neighbour must take at most this share of the current cap's time to be adopted. */
const BETTER = 0.85;
/** Jobs a window needs at least; a window that spans more than `WINDOW_MS` with fewer decides nothing. */
const MIN_JOBS = 128;
const WINDOW_MS = 2_000;

/** The learnt cap of groups in flight of one remote KV. */
export class InFlightCap {
  /** The cap now. */
  value: number;
  /** Changes with each change of `value`: a job is counted in the window of the cap it was submitted under. */
  epoch = 0;
  #count = 0;
  #sum = 0;
  #windowStart: number;
  /** Mean job time at the cap being kept (refreshed by each of its windows). */
  #base: number | undefined;
  /** The cap to return to while a neighbour is tried; null when none is tried. */
  #kept: number | null = null;
  /** After a move, the cap moved from and its time: the first window at the new cap must confirm the move. */
  #moved: { from: number; base: number } | null = null;
  #windows = 0;
  #gap = FIRST_GAP;
  #down = true;
  /** Whether jobs waited for the cap during the window: only then can a higher cap change anything. */
  #bound = false;

  constructor(start = REMOTE_IN_FLIGHT, now = performance.now()) {
    this.value = start;
    this.#windowStart = now;
  }

  /** Notes that jobs wait because the cap's groups are in flight (the committer calls it). */
  bound(): void {
    this.#bound = true;
  }

  /** Counts one job, submitted under `epoch`, that took `ms`; may close a window and move the cap. */
  observe(epoch: number, ms: number, now = performance.now()): void {
    if (epoch !== this.epoch) return;
    this.#count++;
    this.#sum += ms;
    const enough = this.#count >= Math.max(MIN_JOBS, 8 * this.value);
    if (!enough && now - this.#windowStart < WINDOW_MS) return;
    const mean = this.#sum / this.#count;
    const decided = this.#count >= MIN_JOBS; // when the window closed on time
    const bound = this.#bound;
    this.#count = 0;
    this.#sum = 0;
    this.#bound = false;
    this.#windowStart = now;
    if (this.#kept !== null) return this.#endTry(decided ? mean : Infinity); // too few in time: no better
    if (!decided) return; // too little load to tell caps apart: keep the cap
    if (this.#moved !== null) {
      const { from, base } = this.#moved;
      this.#moved = null;
      if (mean > base * BETTER) {
        // The try's window was luck (or the load changed): back, and try less often.
        this.#base = base;
        this.#windows = 0;
        this.#down = !this.#down;
        this.#gap = Math.min(LAST_GAP, this.#gap * 2);
        return this.#set(from);
      }
    }
    this.#base = this.#base === undefined ? mean : (this.#base + mean) / 2;
    if (++this.#windows >= this.#gap) this.#tryNeighbour(bound);
  }

  /** Tries half or double; double only when `bound` (a cap that held no job back changes nothing raised). */
  #tryNeighbour(bound: boolean): void {
    this.#windows = 0;
    if (!this.#down && !bound) this.#down = true;
    let next = this.#down ? this.value / 2 : this.value * 2;
    if (next < MIN_IN_FLIGHT || next > MAX_IN_FLIGHT) {
      if (!bound) return; // at the floor and not holding jobs back: nothing to try
      this.#down = !this.#down;
      next = this.#down ? this.value / 2 : this.value * 2;
    }
    this.#kept = this.value;
    this.#set(Math.round(next));
  }

  #endTry(mean: number): void {
    const kept = this.#kept!;
    this.#kept = null;
    if (mean <= this.#base! * BETTER) {
      // Better: stay (if the next window here confirms it), and try further the same way after that window.
      this.#moved = { from: kept, base: this.#base! };
      this.#base = mean;
      this.#gap = FIRST_GAP;
      this.#windows = FIRST_GAP - 1;
      return;
    }
    this.#down = !this.#down; // the other way next time
    this.#gap = Math.min(LAST_GAP, this.#gap * 2);
    this.#set(kept);
  }

  #set(value: number): void {
    this.value = Math.min(MAX_IN_FLIGHT, Math.max(MIN_IN_FLIGHT, value));
    this.epoch++;
  }
}

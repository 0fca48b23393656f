/**
 * How many live streams (`GET /deliveries/events`) the console holds at once:
 * each holds a KV watch, a heartbeat timer and a read of the log every second
 * for as long as its client keeps it open, so a session (or a few) opening
 * them by the hundred would wear the console down for everyone. A browser
 * needs one whatever its tabs (they share it), so a session gets a few, and
 * the console a total; beyond either a stream is refused with a reason (the
 * live pages then check for new deliveries every few seconds instead, and
 * try the stream again later). A stream gives its place back when it ends.
 *
 * @module
 */

/** The caps on open live streams. */
export interface LiveStreamCaps {
  /** Streams one session may hold open at once; default 10. */
  perSession: number;
  /** Streams this console process holds open at once, all sessions together; default 500. */
  total: number;
}

/** The default caps. */
export const DEFAULT_LIVE_STREAMS: LiveStreamCaps = { perSession: 10, total: 500 };

/** Seconds a refused client is asked to wait (`Retry-After`); the live pages retry their stream on their own. */
const RETRY_AFTER_S = 30;

function refusal(status: 429 | 503, message: string): Response {
  return new Response(message, {
    status,
    headers: { "retry-after": String(RETRY_AFTER_S), "content-type": "text/plain; charset=utf-8" },
  });
}

/** The places of the live streams open now, per session and in all. */
export class LiveStreamSlots {
  #caps: LiveStreamCaps;
  #bySession = new Map<string, number>();
  #total = 0;

  /**
   * @param caps the caps (missing ones take {@linkcode DEFAULT_LIVE_STREAMS})
   * @throws {RangeError} when a cap is not a positive integer
   */
  constructor(caps: Partial<LiveStreamCaps> = {}) {
    this.#caps = { ...DEFAULT_LIVE_STREAMS, ...caps };
    for (const [name, cap] of Object.entries(this.#caps)) {
      if (!Number.isInteger(cap) || cap < 1) {
        throw new RangeError(`Cannot start the console: 'liveStreams.${name}' must be a positive integer, got ${cap}`);
      }
    }
  }

  /** Streams open now. */
  get open(): number {
    return this.#total;
  }

  /**
   * Takes a place for a stream of `session` (its id, kept in memory only):
   * the function that gives it back (once, whatever the calls), or the
   * refusal to answer: `429` past the session's cap, `503` past the total.
   */
  take(session: string): (() => void) | Response {
    const mine = this.#bySession.get(session) ?? 0;
    if (mine >= this.#caps.perSession) {
      return refusal(
        429,
        `Too many live views open for this session (at most ${this.#caps.perSession}): close some of its tabs or ` +
          `windows. The pages check for new deliveries every few seconds meanwhile.`,
      );
    }
    if (this.#total >= this.#caps.total) {
      return refusal(
        503,
        `Too many live views open on this console (at most ${this.#caps.total}): try again later. The pages check ` +
          `for new deliveries every few seconds meanwhile.`,
      );
    }
    this.#bySession.set(session, mine + 1);
    this.#total++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#total--;
      const left = (this.#bySession.get(session) ?? 1) - 1;
      if (left > 0) this.#bySession.set(session, left);
      else this.#bySession.delete(session);
    };
  }
}

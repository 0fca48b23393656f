/**
 * A worker's pace: when its loop wakes (the outbox counter moved, or a time
 * passed), and how many entries it holds at once, sized to its KV's round
 * trip: its concurrency, and what its slots use up (at the pace of their
 * attempts) while a take commits, at least twice its concurrency. On a local
 * KV that is about twice its concurrency (measured up to nine times, where an
 * app answers faster than a take commits); over a KV far away (KV Connect,
 * 20 ms a round trip) to an app that answers at once, it holds up to
 * {@linkcode MAX_ROOM}, taken 64 to a commit, rather than a few at a time
 * with its slots idle between round trips; never more than its slots start (each held by an
 * attempt and the commit recording it) in half the time a taken entry's lease
 * leaves to start it, so that none sits in the buffer to be given back.
 * Its clock never steps back (`steadyClock`): a wall clock set back does not
 * hold back the entries that the clock before the step scheduled.
 *
 * @module
 */

export { MAX_ROOM, Pace } from "./_room.ts";
export { steadyClock } from "./_clock.ts";
export { Wake } from "./_wake.ts";

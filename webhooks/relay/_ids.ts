// The relay's ids: monotonic ULIDs whose random part comes from a pool of
// `crypto.getRandomValues` bytes. The `ulid` package's own source asks
// `getRandomValues` for one byte per character, sixteen calls (about 20 µs)
// for each id made in a new millisecond: under steady traffic, that is most
// of what `write` does per item.

import { monotonicFactory } from "ulid";

const POOL = 4_096;
const pool = new Uint8Array(POOL);
let taken = POOL;

/** A byte of the pool as `ulid` takes it, in [0, 1); the pool is refilled once used up. */
function random(): number {
  if (taken === POOL) {
    crypto.getRandomValues(pool);
    taken = 0;
  }
  return pool[taken++] / 256;
}

/** A new ULID: in order of creation within this process, its random part from the operating system's source. */
export const ulid: () => string = monotonicFactory(random);

/**
 * What the load test sends: signed postbacks, each with a header of its own
 * (a fresh timestamp, so that replay protection does not fold them) and an
 * activity that carries a unique id, and the community and hook records a
 * receiver needs to accept them. Signing is synchronous (node:crypto) so
 * that autocannon can build each request as it sends it. Shared by the load
 * test and the fault tests (`tests/console/faults_test.ts`).
 *
 * @module
 */

import { createHmac, randomBytes } from "node:crypto";
import type { Community, Webhook } from "../webhooks/mod.ts";

/** The community, hook and secret the load test signs for. */
export interface LoadFixture {
  /** The community record to save. */
  community: Community;
  /** The hook record to save. */
  hook: Webhook;
  /** The hook's self URL, named by every item. */
  ref: string;
}

/** A community and a hook of it, with a random client secret. */
export function loadFixture(): LoadFixture {
  const base = "https://load.community.example";
  const ref = `${base}/api/core/v3/webhooks/9001`;
  return {
    community: {
      name: "Load test",
      tenantId: "load-tenant",
      baseUrl: base,
      clientId: "load-client",
      clientSecret: randomBytes(32).toString("base64"),
    },
    hook: {
      id: "01LOADTESTHOOK000000000000",
      tenantId: "load-tenant",
      entity: { id: "9001", resources: { self: { ref } }, events: ["document"], callback: `${base}/cb` },
    },
    ref,
  };
}

/** Builds JiveEXTN headers for one community, each with its own timestamp. */
export class Signer {
  #key: Buffer;
  #clientId: string;
  #tenantId: string;
  #jiveUrl: string;
  #last = 0;

  /** The timestamp of the last header `next()` returned (ms; 0 before the first). */
  get last(): number {
    return this.#last;
  }

  /** @param community the community whose client secret signs */
  constructor(community: Community) {
    const secret = String(community.clientSecret).replace(/\.s$/, "");
    this.#key = Buffer.from(secret, "base64");
    this.#clientId = String(community.clientId);
    this.#tenantId = community.tenantId;
    this.#jiveUrl = String(community.baseUrl);
  }

  /**
   * A header no earlier call returned: its timestamp is strictly increasing.
   * Only the timestamp tells two headers of one community apart, so the first
   * starts four minutes back (inside the five-minute window): the load test
   * can then send far more than one postback per millisecond for a while.
   */
  next(): string {
    this.#last = Math.max(Date.now() - 240_000, this.#last + 1);
    const params = `algorithm=HmacSHA256&client_id=${encodeURIComponent(this.#clientId)}` +
      `&jive_url=${encodeURIComponent(this.#jiveUrl)}&tenant_id=${encodeURIComponent(this.#tenantId)}` +
      `&timestamp=${this.#last}`;
    const signature = createHmac("sha256", this.#key).update(params).digest("base64");
    return `JiveEXTN ${params}&signature=${encodeURIComponent(signature)}`;
  }
}

/**
 * The body of one postback of `items` items (default 1). The activity of
 * the only item is titled `Load {seq}`; of several, `Load {seq} #{i}`.
 */
export function postbackBody(ref: string, seq: string, items = 1): string {
  return JSON.stringify(Array.from({ length: items }, (_, i) => {
    const id = items === 1 ? seq : `${seq} #${i}`;
    return {
      webhook: ref,
      activity: {
        id,
        verb: "jive:created",
        title: `Load ${id}`,
        object: { objectType: "jive:document", id },
        published: new Date().toISOString(),
      },
    };
  }));
}

/**
 * An autocannon `setupRequest`: the request it is given, made a postback of
 * its own. `prepare(count)`, when present, signs that many ahead, before a run.
 */
export type SetupRequest =
  & ((req: Record<string, unknown>, context: Record<string, unknown>) => Record<string, unknown>)
  & { prepare?: (count: number) => void };

/**
 * The oldest a header signed ahead is sent (its timestamp's age): 30 s inside the receiver's five minutes, for the
 * time a request waits on its connection. A fresh header is at most four minutes old (`Signer.next`).
 */
const SENT_AGE_MS = 270_000;

/** One postback signed ahead of its run. */
interface Signed {
  /** Its header's timestamp. */
  timestamp: number;
  seq: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Signed postbacks for autocannon, from a signer of their own (each target
 * keeps its own replay claims): each request takes the next number of
 * `next()`, is titled `Load load-{n}` and notes `n` in its context as `seq`,
 * so the books can tell which were answered 200.
 *
 * `prepare(count)` signs `count` postbacks ahead, and the run then takes
 * them in turn (signing the rest as it sends, should it run out): signing
 * costs the sender about 15 µs of CPU a request (the HMAC, the body's JSON),
 * which it would otherwise take from the cores the measured process runs on
 * while it is measured. A header signed ahead is sent only while its timestamp
 * is at most 270 s old (the receiver refuses one five minutes old; a fresh one
 * is at most four minutes old, `Signer.next`): `prepare` keeps what the last
 * run left unsent while it is, and a run slower than one request a millisecond
 * (its timestamps, a millisecond apart, fall behind the clock) passes over
 * those that grew older, never sending them. Only those behind the clock's
 * four minutes are ever dropped, so the next signed starts there, not past
 * them: the timestamps run ahead of the clock no faster than when each is
 * signed as it is sent (the receiver refuses one 30 s ahead).
 */
export function signedRequests(fixture: LoadFixture, next: () => number): SetupRequest {
  const signer = new Signer(fixture.community);
  const sign = (): Signed => {
    const seq = next();
    const authorization = signer.next();
    return {
      timestamp: signer.last,
      seq,
      headers: { "content-type": "application/json", authorization, "x-tenant-id": "load-tenant" },
      body: postbackBody(fixture.ref, `load-${seq}`),
    };
  };
  let pool: Signed[] = [];
  let taken = 0;
  const setup: SetupRequest = (req, context) => {
    // Those grown too old while the run was slower than one request a millisecond are passed over, never sent.
    const oldest = Date.now() - SENT_AGE_MS;
    while (taken < pool.length && pool[taken].timestamp < oldest) taken++;
    const signed = taken < pool.length ? pool[taken++] : sign();
    context.seq = signed.seq;
    return { ...req, headers: signed.headers, body: signed.body };
  };
  setup.prepare = (count) => {
    const oldest = Date.now() - SENT_AGE_MS;
    pool = pool.slice(taken).filter((signed) => signed.timestamp >= oldest);
    taken = 0;
    while (pool.length < count) pool.push(sign());
  };
  return setup;
}

/**
 * The rate limits that apply to a hook or a community, shown beside it with
 * what is left of the current window: the receiver's limit of the
 * community's tenant (postbacks to this console's receiver), the form posts
 * of the reader's session, and for a sandbox hook the sandbox's trigger
 * limit of the reader's address. Reading them counts no hit.
 *
 * @module
 */

import type { Context } from "hono";
import type { VNode } from "preact";
import type { ConsoleEnv, Deps } from "../lib/context.ts";
import type { RateBucket, RateStatus } from "../lib/rate_limit.ts";
import { clientAddresses, formsKeyOf } from "./rate_limits.ts";

/** One limit as shown. */
export interface LimitShown {
  /** The element id of its line. */
  id: string;
  /** What is limited. */
  what: string;
  /** Whose count it is. */
  per: string;
  /** The environment variable that sets it. */
  variable: string;
  /** Where the key stands; `null` when the limit is off. */
  status: RateStatus | null;
}

const VARIABLES: Record<RateBucket, string> = {
  signin: "RATE_LIMIT_SIGNIN",
  forms: "RATE_LIMIT_FORMS",
  receiver: "RATE_LIMIT_RECEIVER",
  sandbox: "RATE_LIMIT_SANDBOX",
  consents: "",
  rejections: "",
  drafts: "",
};

/**
 * The limits that apply to a hook or community of `tenantId`: the
 * receiver's when postbacks come to this console (`receiver`), the reader's
 * form posts, and the sandbox's trigger when `sandbox`.
 */
export async function limitsFor(
  c: Context<ConsoleEnv>,
  deps: Deps,
  options: { tenantId: string; receiver: boolean; sandbox: boolean },
): Promise<LimitShown[]> {
  const address = clientAddresses.get(c.req.raw) ?? "unknown";
  const wanted: [RateBucket, string, string, string, string][] = [];
  if (options.receiver) {
    wanted.push([
      "receiver",
      options.tenantId,
      "limit-receiver",
      "Postbacks this console's receiver accepts",
      `community (tenant ${options.tenantId}), counted once the signature verifies`,
    ]);
  }
  if (options.sandbox) {
    wanted.push(["sandbox", address, "limit-sandbox", "Triggers on the sandbox page", "your address"]);
  }
  wanted.push([
    "forms",
    formsKeyOf(c, deps),
    "limit-forms",
    "Form posts (Send test event, Enable, Save…)",
    "your session",
  ]);
  return await Promise.all(wanted.map(async ([bucket, key, id, what, per]) => ({
    id,
    what,
    per,
    variable: VARIABLES[bucket],
    status: await deps.limiter.status(bucket, key),
  })));
}

function perWindow(status: RateStatus): string {
  const seconds = status.windowMs / 1000;
  const per = seconds === 60 ? "a minute" : seconds === 3600 ? "an hour" : `per ${seconds} s`;
  return `${status.limit.toLocaleString("en")} ${per}`;
}

/** The rate limits section of a hook's or a community's page. */
export function RateLimitFacts({ limits }: { limits: LimitShown[] }): VNode {
  return (
    <section id="rate-limits" aria-labelledby="rate-limits-heading">
      <h2 id="rate-limits-heading">Rate limits</h2>
      <ul class="limits">
        {limits.map((limit) => (
          <li id={limit.id} key={limit.id}>
            <strong>{limit.what}</strong>: {limit.status
              ? (
                <>
                  {perWindow(limit.status)} per {limit.per};{" "}
                  <span class={limit.status.remaining === 0 ? "status-bad" : undefined}>
                    <span class="left">{limit.status.remaining.toLocaleString("en")}</span> left
                  </span>, the count starts again in {Math.ceil(limit.status.resetsInMs / 1000)} s.
                </>
              )
              : <>not limited ({limit.variable}=0).</>}
          </li>
        ))}
      </ul>
      <p class="hint">Beyond a limit the console answers 429 with Retry-After until the count starts again.</p>
    </section>
  );
}

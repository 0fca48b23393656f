// The stderr line of `receive` for a tenant whose stored community refuses
// every postback (no client secret, one that is not base64, a damaged
// record): said once per tenant, with the command that fixes it. Other 401s
// stay quiet (anyone can send them: a forged header, an unknown tenant);
// these need a tenant whose community is stored with the fault, so a sender
// can make at most one line per such tenant (and no more than MAX_SAID).

import { DAMAGED_COMMUNITY, NO_VERIFYING_SECRET, type ReceiverAttempt } from "../../receiver/mod.ts";
import { attemptHead } from "./_failure_lines.ts";

/** Tenants said at most: past them, no more such lines. */
const MAX_SAID = 1_000;

/** The tenant id as an argument of the command that fixes it: itself when safe to paste as it is, else a placeholder. */
function argument(tenantId: string): string {
  return /^[\w.:@+-]{1,64}$/.test(tenantId) ? tenantId : "<its tenant id>";
}

/** What is wrong and what fixes it, by the receiver's reason. */
const FAULTS: Record<string, (tenant: string) => string> = {
  [NO_VERIFYING_SECRET]: (tenant) =>
    `the community has no client secret that can verify signatures, so every postback of this tenant is refused; ` +
    `store its client secret: deno task cli communities add --tenant ${tenant} --client-secret <its secret> ...`,
  [DAMAGED_COMMUNITY]: (tenant) =>
    `the stored community of this tenant is damaged (not a community record), so every postback of it is refused; ` +
    `store it again: deno task cli communities add --tenant ${tenant} --name <name> --base-url <url> ...`,
};

/** Says on stderr, once per tenant, a 401 whose cause is the stored community. */
export function storedFaultLines(err: (text: string) => void): (attempt: ReceiverAttempt) => void {
  const said = new Set<string>();
  return (attempt) => {
    const fault = attempt.status === 401 ? FAULTS[attempt.reason] : undefined;
    const tenantId = attempt.tenantId;
    if (fault === undefined || tenantId === undefined || said.has(tenantId) || said.size >= MAX_SAID) return;
    said.add(tenantId);
    err(`${attemptHead(attempt)}: ${fault(argument(tenantId))} (said once)`);
  };
}

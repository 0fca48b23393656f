/**
 * What the console says of an OAuth failure (on its pages and in its log):
 * the provider's refusal and its code, a 429 and its wait, an answer not
 * understood, or a link back from the provider that is not valid; never a
 * token, a secret or a value of the link.
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import { OutboundError } from "./outbound.ts";

/** The provider's answer an OAuth failure came from, when it came from one. */
function answerOf(err: unknown): Response | undefined {
  if (err instanceof oauth.ResponseBodyError || err instanceof oauth.WWWAuthenticateChallengeError) {
    return err.response;
  }
  if (err instanceof oauth.OperationProcessingError && err.cause instanceof Response) return err.cause;
  return undefined;
}

/**
 * When an OAuth failure is the provider's `429 Too Many Requests`: the
 * seconds its `Retry-After` asks to wait (`null` when it names none, or a
 * date). `undefined` for any other failure.
 *
 * @param err what an OAuth step threw
 * @returns the wait in seconds, `null`, or `undefined`
 */
export function providerBusy(err: unknown): number | null | undefined {
  const answer = answerOf(err);
  if (answer?.status !== 429) return undefined;
  const wait = answer.headers.get("retry-after")?.trim() ?? "";
  return /^\d{1,6}$/.test(wait) ? Math.max(1, Number(wait)) : null;
}

/** What the sign-in page and the logs say of a provider's 429: the cause, and the wait when known. */
export function tooManyRequestsMessage(wait: number | null): string {
  return `The provider refused: too many requests (429); ${
    wait === null ? "try again later" : `try again in ${wait} s`
  }`;
}

/**
 * A provider's error code as RFC 6749 allows it (printable ASCII but `"` and `\`, here at most 64 characters), else
 * a phrase: the code comes from the callback's URL, which anyone can write, and it goes to the log and the page.
 */
function errorCode(code: unknown): string {
  return typeof code === "string" && /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(code)
    ? code
    : "an error code that is not valid";
}

/**
 * The link back from the provider is malformed: a parameter given twice, the
 * state or issuer missing or another. Its message is oauth4webapi's, which
 * names the parameter and never holds a value of the link.
 */
export class CallbackLinkError extends Error {
  constructor(why: string) {
    super(`The link back from the provider is not valid (${why})`);
  }
}

/**
 * The provider's userinfo answer names its user by a `sub` the console cannot keep: longer than the 255 characters
 * OpenID Connect allows (it keys the user's records, and KV's keys hold 2 KiB). Its message never quotes the `sub`.
 */
export class UserSubjectError extends Error {
  constructor(why: string) {
    super(`The provider's answer was not understood (its 'sub' ${why})`);
  }
}

/** Describes an OAuth failure without echoing tokens or secrets. */
export function describeOAuthError(err: unknown): string {
  if (err instanceof OutboundError || err instanceof CallbackLinkError || err instanceof UserSubjectError) {
    return err.message;
  }
  // An answer cut off past its limit: oauth4webapi reports it as one it could not parse, the cause inside.
  if (err instanceof Error && err.cause instanceof OutboundError) return err.cause.message;
  const busy = providerBusy(err);
  if (busy !== undefined) return tooManyRequestsMessage(busy);
  if (err instanceof oauth.ResponseBodyError) {
    return `The provider refused: ${errorCode(err.error)}`;
  }
  if (err instanceof oauth.AuthorizationResponseError) {
    return `The provider refused: ${errorCode(err.error)}`;
  }
  if (err instanceof oauth.WWWAuthenticateChallengeError) {
    return "The provider refused the access token";
  }
  const answer = answerOf(err);
  if (err instanceof oauth.OperationProcessingError && answer && !answer.ok) {
    return `The provider refused: it answered HTTP ${answer.status}`;
  }
  if (err instanceof oauth.OperationProcessingError) {
    return `The provider's answer was not understood (${err.code ?? "error"})`;
  }
  return "The sign-in could not be completed";
}

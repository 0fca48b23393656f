/**
 * A delivery's response, as GitHub's Response tab shows it: who answered
 * (this console's receiver, or the callback of a platform-side failure),
 * the status, the headers and the body's first bytes.
 *
 * @module
 */

import type { VNode } from "preact";
import type { ResponseInfo } from "../lib/answers.ts";
import { HeadersTable } from "./HeadersTable.tsx";
import { wellFormed } from "./text.ts";

const REASONS: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  301: "Moved Permanently",
  302: "Found",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** Props of {@linkcode ResponseDetail}. */
export interface ResponseDetailProps {
  /** The answer's status; 0 when there was none. */
  status: number;
  /** The delivery's reason (a platform-side failure says why there was no answer). */
  reason?: string;
  /** What was kept of the answer, if anything. */
  response?: ResponseInfo;
  /** Whether the platform logged it (the callback answered, not this console's receiver). */
  platformSide: boolean;
}

/** The response section of a delivery's page. */
export function ResponseDetail(props: ResponseDetailProps): VNode {
  const who = props.platformSide ? "The callback" : "This console's receiver";
  const { response } = props;
  return (
    <section id="delivery-response" aria-labelledby="response-heading">
      <h2 id="response-heading">Response</h2>
      {props.status === 0
        ? (
          <p id="response-status">
            No response: {wellFormed(props.reason?.replace(/^Platform-side failure: /, "") ?? "there was no answer")}.
          </p>
        )
        : (
          <p id="response-status">
            {who} answered{" "}
            <strong>
              {props.status} {REASONS[props.status] ?? ""}
            </strong>
            .
          </p>
        )}
      {props.status !== 0 && !response && (
        <p class="hint" id="response-missing">
          Its headers and body were not kept for this delivery (it was logged before answers were kept, or not by the
          receiver).
        </p>
      )}
      {response && (
        <>
          <HeadersTable id="response-headers" headers={response.headers} />
          <h3>Body</h3>
          {response.body
            ? <pre id="response-body">{wellFormed(response.body)}</pre>
            : <p id="response-body">(empty)</p>}
          {response.cut && <p class="hint">Only the body's first 2 KB are kept.</p>}
        </>
      )}
    </section>
  );
}

/**
 * The sandbox's few HTML pages (index, consent, error, too many requests), built with
 * `hono/html`, which escapes every interpolated value.
 *
 * @module
 */

import { html, raw } from "hono/html";
import { CONTENT_EVENTS, SYSTEM_EVENTS } from "./_events.ts";
import type { HookRecord } from "./_store.ts";
import { shownCallback } from "./_trigger.ts";
import { failureWords, type TriggerNotice } from "./_trigger_notice.ts";

type Markup = ReturnType<typeof html>;

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
code{background:#f3f3f3;padding:0 .25rem;border-radius:3px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left;vertical-align:top}
button{font:inherit;padding:.3rem .9rem;cursor:pointer}select{font:inherit;min-height:1.75rem;padding:.2rem .3rem}
.notice{background:#eef7ee;border:1px solid #9c9;padding:.5rem 1rem}
.error{background:#fbeeee;border:1px solid #c99;padding:.5rem 1rem}
form.inline{display:inline}
code{overflow-wrap:anywhere}td,th,p,li{overflow-wrap:break-word}table{display:block;overflow-x:auto;max-width:100%}
nav.back{margin-bottom:1rem}
.none,.off{color:#555}.off{font-style:italic}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:40rem){table,tbody,tr,td{display:block}tr{border:1px solid #ddd;margin-bottom:.5rem}
tr.head{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
td[data-label]::before{content:attr(data-label);display:block;font-weight:600;color:#555}}
`;

/** Wraps a body in the sandbox's page layout. */
export function page(title: string, body: Markup): Markup {
  return html`
    <!DOCTYPE html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>${title} · Sandbox community</title>
        <style>${raw(STYLE)}</style>
      </head>
      <body>
        <nav class="back" aria-label="Back"><a href="/">← Back to the webhooks console</a></nav>
        <main>${body}</main>
      </body>
    </html>
  `;
}

/** The 400 page of a bad authorization request. */
export function errorPage(message: string): Markup {
  return page(
    "Bad request",
    html`<h1>Bad authorization request</h1>
<p class="error" id="error">${message}</p>
<p>The application that sent you here built a request the sandbox community cannot accept.</p>`,
  );
}

/** The 429 page of a request over the sandbox's rate limit. */
export function tooManyRequestsPage(retryAfter: number): Markup {
  return page(
    "Too many requests",
    html`<h1>Too many requests</h1>
<p class="error" id="error">Too many requests from your address: try again in ${retryAfter} s.</p>
<p><a href="./">Back to the sandbox</a></p>`,
  );
}

/** The fields of an authorization request carried through the consent form. */
export interface ConsentFields {
  client_id: string;
  redirect_uri: string;
  response_type: string;
  code_challenge: string;
  code_challenge_method: string;
  state?: string;
  scope?: string;
}

/** The consent page: Approve or Deny, as the sandbox user. */
export function consentPage(
  action: string,
  clientName: string,
  fields: ConsentFields,
  userName: string,
): Markup {
  const hidden = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) =>
      html`
        <input type="hidden" name="${name}" value="${value}">
      `
    );
  return page(
    "Authorize",
    html`<h1>Sandbox community</h1>
<p>You are signed in to the sandbox community as <strong id="user">${userName}</strong>.</p>
<p><strong id="client">${clientName}</strong> asks for access to your sandbox account
and will be sent back to <code id="redirect">${fields.redirect_uri}</code>.</p>
<form method="post" action="${action}" id="consent">
${hidden}<button type="submit" name="decision" value="approve" id="approve">Approve</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>`,
  );
}

/** What the index page shows. */
export interface IndexView {
  basePath: string;
  baseUrl: string;
  placeUri: string;
  tenantId: string;
  communityClientId: string;
  hooks: HookRecord[];
  /** A trigger's outcome, shown once after its redirect. */
  notice?: TriggerNotice;
}

/** A trigger's notice: the counts, then each failed hook (by its callback as the page shows it) and why. */
function triggerNotice(notice: TriggerNotice, hooks: HookRecord[]): Markup {
  const sent = `${notice.sent} ${notice.sent === 1 ? "postback" : "postbacks"} sent`;
  const failed = notice.failed > 0 ? html`, ${notice.failed} failed` : "";
  const counts = html`Event triggered: ${sent}${failed}.`;
  if (notice.failures.length === 0) {
    return html`<p class="notice" id="triggered" role="status" tabindex="-1" autofocus>${counts}</p>`;
  }
  const items = notice.failures.map((failure) => {
    const hook = hooks.find((h) => h.id === failure[0]);
    const who = hook ? html`<code>${shownCallback(hook.callback)}</code>` : html`Webhook ${failure[0]}`;
    return html`<li>${who}: ${failureWords(failure)}</li>`;
  });
  const more = notice.failed - notice.failures.length;
  return html`<div class="notice" id="triggered" role="status" tabindex="-1" autofocus>
        <p>${counts}</p>
        <ul>${items}</ul>${
    more > 0 ? html`<p>${more} more failed: trigger their hooks one at a time to see why.</p>` : ""
  }
      </div>`;
}

/** The sandbox's home page. */
export function indexPage(view: IndexView): Markup {
  const b = view.basePath;
  const rows = view.hooks.map((hook) =>
    html`
      <tr data-webhook-id="${hook.id}" ${hook.enabled ? "" : html`
        class="disabled"
      `}>
        <td data-label="id">${hook.id}</td>
        <td data-label="events">${hook.events.join(", ")}</td>
        <td data-label="object">${hook.object
          ? html`<code>${hook.object}</code>`
          : html`<span class="none">none</span>`}</td>
        <td data-label="callback"><code>${shownCallback(hook.callback)}</code></td>
        <td data-label="state">${hook.enabled
          ? html`enabled <form class="inline" method="post" action="${b}/trigger">
      <input type="hidden" name="webhookId" value="${hook.id}">
      <button type="submit" aria-label="Trigger webhook ${hook.id}">Trigger</button></form>`
          : html`<span class="off">disabled: posts nothing</span>`}</td>
      </tr>
    `
  );
  const events = [...CONTENT_EVENTS, ...SYSTEM_EVENTS].map((event) => html`<option value="${event}">${event}</option>`);
  const notice = view.notice ? triggerNotice(view.notice, view.hooks) : "";
  return page(
    "Sandbox",
    html`
      <h1>Sandbox community</h1>
      ${notice}
      <p>A built-in emulator of the community platform (Jive REST API v3), served by
      this console, so you can sign in, register a webhook, trigger an event and
      watch the postback arrive without any other software.</p>
      <ul>
        <li>Community: <strong>Sandbox</strong>, tenant id <code>${view.tenantId}</code>,
      address <code id="base-url">${view.baseUrl}</code>, OAuth client id
      <code>${view.communityClientId}</code></li>
        <li>A place to use as the <code>object</code> of content hooks:
      <code id="place">${view.placeUri}</code></li>
        <li>User: Sandbox User (consent is a single Approve button)</li>
      </ul>
      <h2>Endpoints</h2>
      <table>
        <tr>
          <td><code>GET ${b}/oauth2/authorize</code></td>
          <td>authorization code flow, PKCE S256 required</td>
        </tr>
        <tr>
          <td><code>POST ${b}/oauth2/token</code></td>
          <td>grants <code>authorization_code</code> and <code>refresh_token</code> (rotating)</td>
        </tr>
        <tr>
          <td><code>GET ${b}/oauth2/userinfo</code></td>
          <td>who holds a bearer token</td>
        </tr>
        <tr>
          <td><code>POST ${b}/api/core/v3/webhooks</code></td>
          <td>register a webhook (bearer token)</td>
        </tr>
        <tr>
          <td><code>GET ${b}/api/core/v3/webhooks</code></td>
          <td>list, <code>startIndex</code> and <code>count</code></td>
        </tr>
        <tr>
          <td><code>GET|PUT|DELETE ${b}/api/core/v3/webhooks/{id}</code></td>
          <td>one webhook</td>
        </tr>
        <tr>
          <td><code>POST ${b}/trigger</code></td>
          <td>send postbacks to the registered hooks</td>
        </tr>
      </table>
      <h2>Registered webhooks</h2>
      ${view.hooks.length === 0 ? html`<p id="no-hooks">No webhook is registered yet.</p>` : html`
        <table
          id="hooks"><tr class="head"><th>id</th><th>events</th><th>object</th><th>callback</th><th>state</th></tr>
        ${rows}</table>
      `}
      <h2>Trigger an event</h2>
      <form method="post" action="${b}/trigger" id="trigger">
        <label>Event <select name="event"><option value="">each hook's first event</option>${events}</select></label>
        <button type="submit" id="trigger-button">Trigger event</button>
      </form>
    `,
  );
}

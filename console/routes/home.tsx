/**
 * The start page: where the newcomer's walk-through begins.
 *
 * @module
 */

import type { Hono } from "hono";
import { Layout } from "../components/Layout.tsx";
import { type ConsoleEnv, type Deps, html, layoutFrame, noticeOf } from "../lib/context.ts";
import { SANDBOX_COMMUNITY } from "../../sandbox/mod.ts";
import { allCommunities } from "./_webhook_parts.tsx";

/** Adds `/` to `app`. */
export function homeRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  app.get("/", async (c) => {
    // Counted whole (the first page of 100 was shown as the count); the sandbox by its tenant id, whatever its name.
    const values = await allCommunities(deps.webhooks);
    const sandbox = values.find((v) => v.tenantId === SANDBOX_COMMUNITY.tenantId);
    return html(
      c,
      <Layout
        title="Welcome"
        {...layoutFrame(c, deps)}
        notice={noticeOf(c)}
      >
        <p>
          {values.length >= 1000 ? "1,000 or more" : values.length} communit{values.length === 1 ? "y" : "ies"}{" "}
          configured. <a href="/communities">Manage communities</a>
        </p>
        <h2>Try it out</h2>
        <ol class="steps">
          {sandbox && !sandbox.oauth?.access_token && (
            <li>
              Connect the Sandbox community, so the console holds its tokens:{" "}
              <a
                id="connect-sandbox"
                href={`/communities/${encodeURIComponent(sandbox.tenantId)}/connect`}
              >
                Connect Sandbox
              </a>
            </li>
          )}
          <li>
            <a href="/webhooks/new">Register a webhook</a> (the callback defaults to this console's receiver).
          </li>
          {deps.sandbox && (
            <li>
              Trigger an event on the <a href="/sandbox">sandbox page</a>.
            </li>
          )}
          <li>
            Watch it arrive on the <a href="/deliveries">deliveries page</a> (it updates live).
          </li>
        </ol>
      </Layout>,
    );
  });
}

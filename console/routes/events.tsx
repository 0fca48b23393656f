/**
 * The event catalog, `/events`: every event a hook can subscribe to, its
 * kind (content or system), what it reports, its verbs and an example
 * postback as the platform (here the sandbox) sends it. The register form
 * and each hook's page link to it; `/events#event-{name}` opens one event.
 *
 * @module
 */

import type { Hono } from "hono";
import { Layout } from "../components/Layout.tsx";
import { type ConsoleEnv, type Deps, html, layoutFrame } from "../lib/context.ts";
import { eventCatalog, examplePostback } from "../../sandbox/mod.ts";

/** Where the examples say they come from when the sandbox is off. */
const EXAMPLE_COMMUNITY = "https://community.example.com";

/** Adds `/events` to `app`. */
export function eventRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  app.get("/events", (c) => {
    const base = deps.sandbox ? `${deps.publicUrl}/sandbox` : EXAMPLE_COMMUNITY;
    const catalog = eventCatalog();
    const group = (kind: "content" | "system") => catalog.filter((e) => e.kind === kind);
    const section = (kind: "content" | "system") => (
      <>
        {group(kind).map((event) => (
          <section class="event" id={`event-${event.name}`} key={event.name} aria-labelledby={`h-${event.name}`}>
            <h3 id={`h-${event.name}`}>
              <code>{event.name}</code>
            </h3>
            <p class="event-description">{event.description}</p>
            <p class="hint">
              Verb sent by default: <code>{event.verb}</code>
              {event.otherVerbs.length > 0 && (
                <>
                  ; also {event.otherVerbs.map((verb, i) => (
                    <span key={verb}>
                      {i > 0 && ", "}
                      <code>{verb}</code>
                    </span>
                  ))}
                </>
              )}
              .
            </p>
            <details>
              <summary>Example payload</summary>
              <pre class="example" id={`example-${event.name}`} tabIndex={0}>
                {JSON.stringify(examplePostback(event.name, base), null, 2)}
              </pre>
            </details>
          </section>
        ))}
      </>
    );
    return html(
      c,
      <Layout title="Event catalog" {...layoutFrame(c, deps)}>
        <p>
          The events a webhook can subscribe to. The platform posts each as a JSON array of{" "}
          <code>{"{ webhook, activity }"}</code> to the hook's callback, with{" "}
          <code>Content-Type: application/json</code>, <code>X-Tenant-ID</code> and a signed{" "}
          <code>Authorization: JiveEXTN …</code>{" "}
          header. The examples are what the sandbox sends{deps.sandbox
            ? ""
            : " (for a community at community.example.com)"}.
        </p>
        <p>
          <a href="/webhooks/new" id="register-from-catalog">Register a webhook</a>
        </p>
        <nav aria-label="Events" class="event-index">
          <ul>
            {catalog.map((e) => (
              <li key={e.name}>
                <a href={`#event-${e.name}`}>{e.name}</a>
              </li>
            ))}
          </ul>
        </nav>
        <h2>Content events</h2>
        <p class="hint">
          They need an object, the URI of a place: the hook receives what happens in that place.
        </p>
        {section("content")}
        <h2>System events</h2>
        <p class="hint">
          They take no object and cannot be mixed with content events in one webhook.
        </p>
        {section("system")}
      </Layout>,
    );
  });
}

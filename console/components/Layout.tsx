/**
 * The page frame: head, navigation, flash message and the scripts (Library
 * B's global bundle and the islands bundle).
 *
 * @module
 */

import type { ComponentChildren, VNode } from "preact";
import { Csrf } from "./Csrf.tsx";
import { PAGE_ERROR_ID } from "./field_error.ts";

export { fieldError } from "./field_error.ts";

/** Props of {@linkcode Layout}. */
export interface LayoutProps {
  /** Page title. */
  title: string;
  /** A second line of the heading, not in the title: the record id under a hook's name. */
  subtitle?: string;
  /** Signed-in user's name, when signed in. */
  user?: string;
  /** The session's CSRF token (for the sign-out form). */
  csrf?: string;
  /** A notice shown above the content, after an action; focus is moved to it when the page loads (unless `error`). */
  notice?: string;
  /** The id of what more the notice says (a warning below it): read out with the notice, as its description. */
  noticeDetails?: string;
  /** An error shown above the content; focus is moved to it when the page loads, and `fieldError` points a field at it. */
  error?: string;
  /** Whether the sandbox is mounted (adds a navigation link). */
  sandbox?: boolean;
  /** The page's path: its navigation link gets `aria-current="page"`. */
  path?: string;
  /** Page content. */
  children: ComponentChildren;
}

/** A small inline icon, so that no page asks for a /favicon.ico that is not there. */
const FAVICON = "data:image/svg+xml," + encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#2b6cb0"/></svg>',
);

/** The console's page frame. */
export function Layout(props: LayoutProps): VNode {
  const link = (href: string, label: string) => {
    const current = props.path === href || props.path?.startsWith(href + "/");
    return <a href={href} aria-current={current ? "page" : undefined}>{label}</a>;
  };
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Webhooks console`}</title>
        <link rel="stylesheet" href="/static/style.css" />
        <link rel="icon" href={FAVICON} />
        {props.user && props.csrf && <script src="/static/guard.js"></script>}
        <script src="/static/_build/community.min.js" defer></script>
        <script type="module" src="/static/_build/islands.js"></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="/">Webhooks console</a>
          {props.user && (
            <nav aria-label="Main">
              {link("/communities", "Communities")}
              {link("/webhooks", "Webhooks")}
              {link("/deliveries", "Deliveries")}
              {props.sandbox && <a href="/sandbox">Sandbox</a>}
            </nav>
          )}
          {props.user && props.csrf && (
            <form method="post" action="/signout" class="signout">
              <Csrf token={props.csrf} />
              <span class="user">{props.user}</span> <button type="submit">Sign out</button>
            </form>
          )}
        </header>
        <main id="main" tabIndex={-1}>
          <h1 class={props.subtitle === undefined ? undefined : "hook-name"}>
            {props.title}
            {props.subtitle !== undefined && <small class="id">{props.subtitle}</small>}
          </h1>
          {
            /* Focus goes to the message (no script needed): a screen reader reads it, and the next Tab goes on into
              the page below it rather than starting over at the skip link and the navigation. A notice is in the page
              from its load (a role=status region is announced when it changes, not when a page loads with it), and
              only pages that follow an action show one; an error, when there is one too, takes focus instead. */
          }
          {props.notice && (
            <p
              class="notice"
              role="status"
              id="page-notice"
              tabIndex={-1}
              autoFocus={!props.error}
              aria-describedby={props.noticeDetails}
            >
              {props.notice}
            </p>
          )}
          {props.error && (
            <p class="error" role="alert" id={PAGE_ERROR_ID} tabIndex={-1} autoFocus>
              {props.error}
            </p>
          )}
          {props.children}
        </main>
      </body>
    </html>
  );
}

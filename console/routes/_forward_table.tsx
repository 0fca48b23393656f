/**
 * The destinations table of a hook's "Forward to" page: each destination of
 * the page shown with Enable or Disable and Remove, whose forms keep the page.
 *
 * @module
 */

import type { VNode } from "preact";
import type { Destination } from "../../webhooks/mod.ts";
import { Csrf } from "../components/Csrf.tsx";
import { shownUrl } from "../lib/shown_url.ts";
import { hooksOf } from "./_forward_lookups.ts";

/** Props of {@linkcode DestinationsTable}. */
export interface DestinationsTableProps {
  destinations: Destination[];
  /** The "Forward to" page's path. */
  path: string;
  /** The query that keeps the page shown (`""` on the first), led by `?`. */
  keep: string;
  /** The session's CSRF token. */
  csrf: string;
}

/** The destinations of the page shown, or that there is none yet. */
export function DestinationsTable({ destinations, path, keep, csrf }: DestinationsTableProps): VNode {
  if (destinations.length === 0) return <p id="forward-none">No destination yet.</p>;
  return (
    <table id="forward-destinations">
      <thead>
        <tr>
          <th>URL</th>
          <th>Hooks</th>
          <th>State</th>
          <th>Actions</th>
        </tr>
      </thead>
      <tbody>
        {destinations.map((d) => (
          <tr data-destination={d.id}>
            <td>
              {
                d.damaged === undefined
                  ? <code>{shownUrl(d.url)}</code>
                  : `damaged record: ${d.damaged} (remove it, then add it again)` /* not a blank: docs/relay.md */
              }
              {d.pinned && " (a developer's listen)"}
            </td>
            <td>{hooksOf(d)}</td>
            <td>{d.damaged !== undefined ? "damaged" : d.enabled ? "enabled" : "disabled"}</td>
            <td>
              <form method="post" action={`${path}/${encodeURIComponent(d.id)}/enabled${keep}`}>
                <Csrf token={csrf} />
                <input type="hidden" name="enabled" value={d.enabled ? "0" : "1"} />
                <button type="submit">{d.enabled ? "Disable" : "Enable"}</button>
              </form>
              <form method="post" action={`${path}/${encodeURIComponent(d.id)}/remove${keep}`}>
                <Csrf token={csrf} />
                <button type="submit">Remove</button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The dead letters of a hook's "Forward to" page: one page of them, newest
 * first, each with Redeliver, and a link to the older ones.
 *
 * @module
 */

import type { VNode } from "preact";
import type { DeadLetter } from "../../webhooks/mod.ts";
import { Csrf } from "../components/Csrf.tsx";
import { StoredTime } from "../components/LocalTime.tsx";
import { keepPage } from "./_forward_pages.tsx";

/** Props of {@linkcode DeadLetters}. */
export interface DeadLettersProps {
  /** The page of dead letters, the cursor of the older ones (`""`: none), and how many the relay read (shown or not). */
  dead: { values: DeadLetter[]; cursor: string; read: number };
  /** Whether it is the first page (the newest). */
  first: boolean;
  /** The "Forward to" page's path. */
  path: string;
  /** The id the page of destinations shown starts after (`undefined`: the first), which its links and forms keep. */
  after?: string;
  /** The session's CSRF token. */
  csrf: string;
}

/** The dead letters section, below its heading. */
export function DeadLetters({ dead, first, path, after, csrf }: DeadLettersProps): VNode {
  return (
    <>
      {dead.values.length === 0
        // None read at all: letters read but at destinations of another page (or none now) are not "none".
        ? (first && dead.cursor === "" && dead.read === 0
          ? <p id="forward-no-dead">None: every forwarded postback was delivered or is still being tried.</p>
          // The page before held the last ones, a whole page of them: the relay could not tell that there were no more.
          : !first && dead.read === 0
          ? <p id="forward-no-older">No older dead letters.</p>
          // The page's letters were all at destinations it does not show (another page's, removed, or other hooks').
          : <p id="forward-no-dead-here">None on this page of the destinations shown here.</p>)
        : (
          <table id="forward-dead">
            <thead>
              <tr>
                <th>Since</th>
                <th>Entry (webhook-id)</th>
                <th>Attempts</th>
                <th>Last failure</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {dead.values.map((letter) => (
                <tr data-entry={letter.id}>
                  <td>
                    <StoredTime ms={letter.deadAt} />
                  </td>
                  <td>
                    <code>{letter.id}</code>
                  </td>
                  <td>{letter.attempts}</td>
                  <td>{letter.reason}</td>
                  <td>
                    <form
                      method="post"
                      action={`${path}/redeliver/${encodeURIComponent(letter.id)}${keepPage(after, "?")}`}
                    >
                      <Csrf token={csrf} />
                      <button type="submit">Redeliver</button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      {dead.cursor !== "" && (
        <p>
          <a
            id="forward-dead-older"
            href={`${path}?dead=${encodeURIComponent(dead.cursor)}${keepPage(after, "&")}#forward-dead`}
          >
            Older dead letters
          </a>
        </p>
      )}
    </>
  );
}

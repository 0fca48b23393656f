/**
 * Whole pages that only say one thing: refused requests, errors, not found.
 *
 * @module
 */

import type { VNode } from "preact";
import { Layout } from "./Layout.tsx";

/** Props of {@linkcode MessagePage}. */
export interface MessagePageProps {
  /** Page title. */
  title: string;
  /** The message. */
  message: string;
  /** Signed-in user's name, if any. */
  user?: string;
  /** The session's CSRF token, if any. */
  csrf?: string;
  /** Whether the sandbox link shows. */
  sandbox?: boolean;
}

/** A page with one message and a link back to the start. */
export function MessagePage(props: MessagePageProps): VNode {
  return (
    <Layout
      title={props.title}
      user={props.user}
      csrf={props.csrf}
      sandbox={props.sandbox}
    >
      <p class="message">{props.message}</p>
      <p>
        <a href="/">Back to the start</a>
      </p>
    </Layout>
  );
}

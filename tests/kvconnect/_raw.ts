// Speaks KV Connect by hand (the metadata exchange, then protobuf requests),
// to reach the server with requests Deno's own client refuses to send.
import { encodeRequest, type KvConnectServer } from "../../kvconnect/mod.ts";

/** An answer of the data path: the status and the body as text (for a refusal) or bytes. */
export interface RawAnswer {
  status: number;
  text: string;
  bytes: Uint8Array;
}

/** A client that posts data path messages after one metadata exchange. */
export interface RawClient {
  metadata: Record<string, unknown>;
  post(endpoint: "snapshot_read" | "atomic_write" | "watch", message: Record<string, unknown>): Promise<RawAnswer>;
}

/** Performs the metadata exchange with `server` and returns a raw data path client. */
export async function rawClient(server: KvConnectServer): Promise<RawClient> {
  const response = await fetch(server.url, {
    method: "POST",
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    body: JSON.stringify({ supportedVersions: [2, 3] }),
  });
  const metadata = await response.json();
  return {
    metadata,
    async post(endpoint, message) {
      const answer = await fetch(new URL(`${metadata.endpoints[0].url}/${endpoint}`, server.url), {
        method: "POST",
        headers: {
          authorization: `Bearer ${metadata.token}`,
          "content-type": "application/x-protobuf",
          "x-denokv-version": String(metadata.version),
          "x-denokv-database-id": metadata.databaseId,
        },
        body: encodeRequest(endpoint, message) as Uint8Array<ArrayBuffer>,
      });
      if (endpoint === "watch" && answer.ok) {
        // A watch answers with an endless stream: the first frame is enough.
        const reader = answer.body!.getReader();
        const first = await reader.read();
        await reader.cancel();
        return { status: answer.status, text: "", bytes: first.value ?? new Uint8Array() };
      }
      const bytes = new Uint8Array(await answer.arrayBuffer());
      return { status: answer.status, text: new TextDecoder().decode(bytes), bytes };
    },
  };
}

// A KV file shared with child processes, the sandbox platform and its
// community: what the process-level tests of Module A start from.

import { type Community, createWebhooks, type Webhooks } from "../../webhooks/mod.ts";
import { writeChildScript } from "./_child.ts";
import { communityOf, type Platform, startPlatform } from "./platform.ts";

/** A KV file in a temp dir with the community of the sandbox platform saved in it, and a child script. */
export interface FileSetup {
  dir: string;
  kvPath: string;
  kv: Deno.Kv;
  hooks: Webhooks;
  platform: Platform;
  community: Community;
  script: string;
  close(): Promise<void>;
}

/**
 * Makes a temp dir named with `prefix`, opens a KV file in it, starts the
 * platform, saves its community and writes the child script `name` with
 * `source`. `close()` stops the platform, closes the KV and removes the dir.
 */
export async function fileSetup(prefix: string, name: string, source: string): Promise<FileSetup> {
  const dir = await Deno.makeTempDir({ prefix });
  const kvPath = `${dir}/kv.sqlite3`;
  const kv = await Deno.openKv(kvPath);
  const platform = await startPlatform();
  const hooks = createWebhooks(kv);
  const community: Community = communityOf(platform);
  await hooks.communities.save(community);
  const script = await writeChildScript(dir, name, source);
  return {
    dir,
    kvPath,
    kv,
    hooks,
    platform,
    community,
    script,
    async close() {
      await platform.close();
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

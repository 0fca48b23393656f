// Values on the wire: V8 serialization for most values, little-endian 64-bit
// for Deno.KvU64, raw bytes for a Uint8Array (denokv `proto/schema/datapath.proto`,
// ValueEncoding). The local KV stores the decoded JavaScript value.
import { Deserializer, Serializer } from "node:v8";
import { VE_BYTES, VE_LE64, VE_V8 } from "./_schema.ts";

/** A request that cannot be served: answered with a 4xx status and the message as plain text. */
export class KvConnectError extends Error {
  /** The HTTP status to answer with. */
  readonly status: number;
  constructor(message: string, status = 400) {
    super(message);
    this.name = "KvConnectError";
    this.status = status;
  }
}

function plain(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/** Decodes a value of the wire into what the local KV stores. */
export function decodeValue(data: Uint8Array, encoding: number): unknown {
  if (encoding === VE_BYTES) return plain(data);
  if (encoding === VE_LE64) {
    if (data.length !== 8) throw new KvConnectError("Invalid mutation kind or arguments.");
    return new Deno.KvU64(new DataView(data.buffer, data.byteOffset, 8).getBigUint64(0, true));
  }
  if (encoding === VE_V8) {
    try {
      const reader = new Deserializer(data);
      reader.readHeader();
      return reader.readValue();
    } catch {
      throw new KvConnectError("Request protobuf is invalid: the V8 value cannot be read.");
    }
  }
  throw new KvConnectError(`The value encoding ${encoding} is unknown.`);
}

/** Encodes a stored value for the wire. */
export function encodeValue(value: unknown): { data: Uint8Array; encoding: number } {
  if (value instanceof Deno.KvU64) {
    const data = new Uint8Array(8);
    new DataView(data.buffer).setBigUint64(0, value.value, true);
    return { data, encoding: VE_LE64 };
  }
  if (value instanceof Uint8Array) return { data: plain(value), encoding: VE_BYTES };
  const writer = new Serializer();
  writer.writeHeader();
  writer.writeValue(value);
  return { data: plain(writer.releaseBuffer()), encoding: VE_V8 };
}

/** A versionstamp as 10 raw bytes. */
export function versionstampBytes(hex: string): Uint8Array {
  const out = new Uint8Array(10);
  for (let i = 0; i < 10; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** A versionstamp of 10 raw bytes as Deno's hex string. */
export function versionstampHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

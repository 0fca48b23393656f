// The KV Connect data path messages, written from the published schema
// (denokv `proto/schema/datapath.proto`, package com.deno.kv.datapath) and
// compiled at load time by protobufjs. Only the messages the server reads or
// writes are kept; field numbers and types are the published ones.
import protobuf from "protobufjs";

const SCHEMA = `
syntax = "proto3";
package com.deno.kv.datapath;

message SnapshotRead { repeated ReadRange ranges = 1; }
message SnapshotReadOutput {
  reserved 3, 5, 6, 7;
  repeated ReadRangeOutput ranges = 1;
  bool read_disabled = 2;
  bool read_is_strongly_consistent = 4;
  SnapshotReadStatus status = 8;
}
enum SnapshotReadStatus { SR_UNSPECIFIED = 0; SR_SUCCESS = 1; SR_READ_DISABLED = 2; }
message ReadRange { bytes start = 1; bytes end = 2; int32 limit = 3; bool reverse = 4; }
message ReadRangeOutput { repeated KvEntry values = 1; }
message AtomicWrite {
  repeated Check checks = 1;
  repeated Mutation mutations = 2;
  repeated Enqueue enqueues = 3;
}
message AtomicWriteOutput {
  reserved 3;
  AtomicWriteStatus status = 1;
  bytes versionstamp = 2;
  repeated uint32 failed_checks = 4;
}
message Check { bytes key = 1; bytes versionstamp = 2; }
message Mutation { bytes key = 1; KvValue value = 2; MutationType mutation_type = 3; int64 expire_at_ms = 4; }
message KvValue { bytes data = 1; ValueEncoding encoding = 2; }
message KvEntry { bytes key = 1; bytes value = 2; ValueEncoding encoding = 3; bytes versionstamp = 4; }
enum MutationType { M_UNSPECIFIED = 0; M_SET = 1; M_DELETE = 2; M_SUM = 3; M_MAX = 4; M_MIN = 5; }
enum ValueEncoding { VE_UNSPECIFIED = 0; VE_V8 = 1; VE_LE64 = 2; VE_BYTES = 3; }
enum AtomicWriteStatus {
  reserved 3, 4, 6;
  AW_UNSPECIFIED = 0; AW_SUCCESS = 1; AW_CHECK_FAILURE = 2; AW_WRITE_DISABLED = 5;
}
message Enqueue {
  bytes payload = 1;
  int64 deadline_ms = 2;
  repeated bytes keys_if_undelivered = 3;
  repeated uint32 backoff_schedule = 4;
}
message Watch { repeated WatchKey keys = 1; }
message WatchOutput { SnapshotReadStatus status = 1; repeated WatchKeyOutput keys = 2; }
message WatchKey { bytes key = 1; }
message WatchKeyOutput { bool changed = 1; KvEntry entry_if_changed = 2; }
`;

const root = protobuf.parse(SCHEMA, { keepCase: false }).root;

function type(name: string): protobuf.Type {
  return root.lookupType(`com.deno.kv.datapath.${name}`);
}

/** Message types of the data path protocol. */
export const pb = {
  SnapshotRead: type("SnapshotRead"),
  SnapshotReadOutput: type("SnapshotReadOutput"),
  AtomicWrite: type("AtomicWrite"),
  AtomicWriteOutput: type("AtomicWriteOutput"),
  Watch: type("Watch"),
  WatchOutput: type("WatchOutput"),
} as const;

/** Enum numbers of the data path protocol. */
export const SR_SUCCESS = 1;
export const AW_SUCCESS = 1;
export const AW_CHECK_FAILURE = 2;
export const M_SET = 1;
export const M_DELETE = 2;
export const M_SUM = 3;
export const M_MAX = 4;
export const M_MIN = 5;
export const VE_V8 = 1;
export const VE_LE64 = 2;
export const VE_BYTES = 3;

/** A key range of a snapshot read, as decoded. */
export interface ReadRangeMsg {
  start: Uint8Array;
  end: Uint8Array;
  limit: number;
  reverse: boolean;
}

/** A value with its encoding, as decoded. */
export interface KvValueMsg {
  data: Uint8Array;
  encoding: number;
}

/** An entry as sent to the client. */
export interface KvEntryMsg {
  key: Uint8Array;
  value: Uint8Array;
  encoding: number;
  versionstamp: Uint8Array;
}

/** An atomic write, as decoded. */
export interface AtomicWriteMsg {
  checks: { key: Uint8Array; versionstamp: Uint8Array }[];
  mutations: { key: Uint8Array; value?: KvValueMsg; mutationType: number; expireAtMs: number }[];
  enqueues: { payload: Uint8Array; deadlineMs: number; keysIfUndelivered: Uint8Array[]; backoffSchedule: number[] }[];
}

/**
 * Decodes one request body into a plain object with every field present
 * (defaults filled in, 64-bit integers as numbers).
 */
export function decode<T>(type: protobuf.Type, body: Uint8Array): T {
  const message = type.decode(body);
  return type.toObject(message, { longs: Number, enums: Number, defaults: true, arrays: true }) as T;
}

/** Encodes a plain object as the given message. */
export function encode(type: protobuf.Type, value: Record<string, unknown>): Uint8Array {
  // protobufjs answers a Node Buffer; callers get a plain Uint8Array.
  const bytes = type.encode(type.fromObject(value)).finish();
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

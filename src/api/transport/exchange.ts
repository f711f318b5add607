/** What a sender (node:http, undici, a fetch) hands the transport, and how it is stopped. Internal, so it may name Node's types. */
import type { ResponseHeaders } from '../errors.js';
import type { ProxyChoice } from './network.js';

export interface Exchange {
  status: number;
  statusText: string;
  headers: ResponseHeaders;
  /** Names and values in turn, as received, one character a byte (node:http's rawHeaders): for `gymctl api -i`. */
  rawHeaders?: readonly string[];
  /** `1.1`, where the sender knows it (node:http). */
  httpVersion?: string;
  body: NodeStream | AsyncIterable<Uint8Array> | null;
  /** Already decoded from its Content-Encoding (fetch does that itself). */
  decoded?: boolean;
  cancel(): void;
}

export type NodeStream = NodeJS.ReadableStream & { destroy(error?: Error): void };

/** An attempt may be stopped any time (deadline, Ctrl-C, close()): the sender's promise and body then settle at once with the reason. */
export interface AttemptControl {
  /** Called at once if the attempt is already stopped, else at most once, when it is. */
  onStop(stop: (reason: Error) => void): void;
}

/** Sends a GET of `url` (path and query under the sender's origin). */
export type Send = (url: string, headers: Record<string, string>, control: AttemptControl) => Promise<Exchange>;

/** A way to send, open for the client's life, and the proxy it goes through (for messages). */
export interface Connection {
  send: Send;
  close(): Promise<void>;
  proxy?: ProxyChoice | undefined;
}

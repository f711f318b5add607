/**
 * What a sender hands the transport, whichever it is (node:http, undici, a fetch), and how the transport stops it: the
 * transport's own contract, not exported by the library, so it may name Node's types.
 */
import type { ResponseHeaders } from '../errors.js';
import type { ProxyChoice } from './network.js';

/** An HTTP answer as the transport reads it, whichever sender it came through. */
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
  /** Stops reading the body and frees the connection. */
  cancel(): void;
}

export type NodeStream = NodeJS.ReadableStream & { destroy(error?: Error): void };

/** The transport may stop an attempt at any time (its deadline, Ctrl-C, close()): the sender's promise, and the body it handed over, then settle at once with the stop's reason. */
export interface AttemptControl {
  /** How to stop this attempt's request; called at once if the attempt is already stopped, else at most once, when it is. */
  onStop(stop: (reason: Error) => void): void;
}

/** Sends a GET of `url` (the path and query under the origin the sender was made for), keeping the AttemptControl contract. */
export type Send = (url: string, headers: Record<string, string>, control: AttemptControl) => Promise<Exchange>;

/** A way to send, open for the client's life: its sender, how to close it, and the proxy it goes through (for messages). */
export interface Connection {
  send: Send;
  close(): Promise<void>;
  proxy?: ProxyChoice | undefined;
}

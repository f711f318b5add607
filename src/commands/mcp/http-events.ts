/** The events a session of `gymctl mcp --http` keeps for a client that resumes a stream with Last-Event-ID. */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** What each session keeps for Last-Event-ID: its last 100 events, at most 1 MB of them (the newest is always kept). */
export const MAX_STORED_EVENTS = 100;
export const MAX_STORED_BYTES = 1024 * 1024;

export function eventStore(maxEvents = MAX_STORED_EVENTS, maxBytes = MAX_STORED_BYTES): EventStore {
  const events: Array<{ id: string; streamId: string; message: JSONRPCMessage; bytes: number }> = [];
  let bytes = 0;
  let count = 0;
  const find = (id: string) => events.findIndex((event) => event.id === id);
  return {
    async storeEvent(streamId, message) {
      const event = { id: String(++count), streamId, message, bytes: Buffer.byteLength(JSON.stringify(message)) };
      events.push(event);
      bytes += event.bytes;
      while (events.length > maxEvents || (events.length > 1 && bytes > maxBytes)) bytes -= events.shift()!.bytes;
      return event.id;
    },
    async getStreamIdForEventId(id) {
      return events[find(id)]?.streamId;
    },
    async replayEventsAfter(id, { send }) {
      const at = find(id);
      const streamId = events[at]!.streamId;
      // A priming event (no message) is not sent again.
      for (const event of events.slice(at + 1)) if (event.streamId === streamId && 'jsonrpc' in event.message) await send(event.id, event.message);
      return streamId;
    },
  };
}

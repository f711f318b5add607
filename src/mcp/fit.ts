/**
 * A tool result holds its answer twice (structured, and as text, as the MCP spec asks), so a 6 MB record would pass the
 * 10 MiB line past which the SDK's stdio reader drops the session. Each result is held to --max-answer: a list keeps
 * the records that fit, a record the fields that fit whole, and `truncated` says what was left out and how to get it.
 */
import * as z from 'zod/mini';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A tool's structured answer: `data`, and what else the tool answers beside it (`notFound`). */
export type Answer = { data: unknown } & Record<string, unknown>;

/** How a tool's answer is shortened, and how its caller gets the rest. */
export interface Shortening {
  /** `list`: records of one answer (a family); `batch`: records asked for by id, which can be asked for again; `record`: one record. */
  shape: 'list' | 'batch' | 'record';
  /** The command that prints the whole answer at a terminal: `gymctl family 501 --json`. */
  command: string;
  /** For a batch: the tool to call with the ids left out. */
  tool?: string;
}

/** What a shortened answer says of itself (`truncated`, in every tool's output schema). */
export const truncatedSchema = () =>
  z
    .object({
      note: z.string().register(z.globalRegistry, { description: 'What was left out, in words' }),
      bytes: z.number().register(z.globalRegistry, { description: 'Bytes the whole result would have taken (both of its copies)' }),
      limit: z.number().register(z.globalRegistry, { description: "Bytes this server sends in one result at most (gymctl mcp's --max-answer)" }),
      returned: z.optional(z.number().register(z.globalRegistry, { description: 'Records in data' })),
      total: z.optional(z.number().register(z.globalRegistry, { description: 'Records in the whole answer' })),
      omittedIds: z.optional(z.array(z.string()).register(z.globalRegistry, { description: 'Ids of the records left out, in order: ask for them in another call' })),
      omittedFields: z.optional(
        z.array(z.string()).register(z.globalRegistry, { description: 'Fields left out, each too long to fit whole, as paths (data.notes, data[0].bio); the first 50' }),
      ),
      next: z.string().register(z.globalRegistry, { description: 'How to get what was left out' }),
    })
    .register(z.globalRegistry, { description: 'Present only when the answer was too long for one result and was shortened' });

export type Truncated = z.infer<ReturnType<typeof truncatedSchema>>;

const resultOf = (answer: Answer): CallToolResult => ({ structuredContent: answer, content: [{ type: 'text', text: JSON.stringify(answer) }] });

export const bytesOf = (result: CallToolResult) => Buffer.byteLength(JSON.stringify(result));

/** What a JSON fragment adds to a result: its bytes in the structured copy, and again, escaped, in the text copy. */
const costOf = (fragment: string) => Buffer.byteLength(fragment) + Buffer.byteLength(JSON.stringify(fragment)) - 2;

const grouped = (n: number) => n.toLocaleString('en-US');

/** Fields named as left out, at most, so the note itself fits. */
const NAMED_FIELDS = 50;

const named = (paths: string[]) => paths.slice(0, NAMED_FIELDS);

/** `a`, `a, b and c`, or `a, b, c, d, e and 45 more` (and nothing for none). */
function listed(keys: string[]): string {
  const shown = keys.slice(0, 5);
  const more = keys.length - shown.length;
  // One key or none: join has no separator to add.
  return more > 0 ? `${shown.join(', ')} and ${grouped(more)} more` : shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown.join();
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** `record` with the fields that fit in `budget` bytes whole, in order, and the names of those left out. */
function fieldsThatFit(record: Record<string, unknown>, budget: number): { kept: Record<string, unknown>; omitted: string[] } {
  const kept: Record<string, unknown> = {};
  const omitted: string[] = [];
  let left = budget;
  for (const [key, value] of Object.entries(record)) {
    const cost = costOf(`${JSON.stringify(key)}:${JSON.stringify(value)},`);
    if (cost <= left) {
      kept[key] = value;
      left -= cost;
    } else omitted.push(key);
  }
  return { kept, omitted };
}

/** The result of `answer` held to `limit` bytes; `unfetched`: ids the tool did not fetch, named after those left out. */
export function fitAnswer(answer: Answer, limit: number, how: Shortening, unfetched: readonly string[] = []): CallToolResult {
  const whole = resultOf(answer);
  const bytes = bytesOf(whole);
  if (bytes <= limit && unfetched.length === 0) return whole;
  const base = { bytes, limit };
  const said =
    bytes > limit
      ? `This answer is ${grouped(bytes)} bytes, over the ${grouped(limit)} this server sends in one result`
      : `This tool fetches at most ${grouped(Array.isArray(answer.data) ? answer.data.length : 0)} records in one call`;
  const raise = "or ask the user to raise --max-answer in this MCP server's configuration";
  const { data } = answer;

  if (Array.isArray(data)) {
    const total = data.length + unfetched.length;
    const ids = data.map((item) => (isRecord(item) && item.id !== undefined ? String(item.id) : undefined));
    const shortened = (n: number, first?: { record: Record<string, unknown>; omitted: string[] }): Answer => {
      const records = first ? [first.record, ...data.slice(1, n)] : data.slice(0, n);
      const note: Truncated = {
        ...base,
        note: `${said}: it holds the first ${grouped(n)} of its ${grouped(total)} records${first?.omitted.length ? `, the first without ${listed(first.omitted)}` : ''}.`,
        returned: n,
        total,
        next:
          how.shape === 'batch' && how.tool
            ? `Call ${how.tool} again with the ids in omittedIds (fewer at a time), ${raise}.`
            : `The rest is not available through this tool: ask the user to run \`${how.command}\`, ${raise}.`,
      };
      if (how.shape === 'batch') note.omittedIds = [...ids.slice(n).filter((id): id is string => id !== undefined), ...unfetched];
      if (first?.omitted.length) note.omittedFields = named(first.omitted.map((key) => `data[0].${key}`));
      return { ...answer, data: records, truncated: note };
    };
    // The most records that fit whole: each record's cost (less, in a batch, its id, then no longer in omittedIds) added
    // up against the room the note leaves (the last record has no comma after it), then measured as written.
    const room = limit - bytesOf(resultOf(shortened(0))) + costOf(',');
    let fits = 0;
    for (let used = 0; fits < data.length; fits++) {
      const id = how.shape === 'batch' ? ids[fits] : undefined;
      used += costOf(`${JSON.stringify(data[fits])},`) - (id === undefined ? 0 : costOf(`${JSON.stringify(id)},`));
      if (used > room) break;
    }
    while (fits > 0 && bytesOf(resultOf(shortened(fits))) > limit) fits--;
    if (fits > 0) return resultOf(shortened(fits));
    // Not even the first record fits whole: the first, with the fields that fit.
    const first = data[0];
    if (isRecord(first)) {
      const room = limit - bytesOf(resultOf(shortened(1, { record: {}, omitted: Object.keys(first) })));
      const { kept, omitted } = fieldsThatFit(first, room);
      const result = resultOf(shortened(1, { record: kept, omitted }));
      if (bytesOf(result) <= limit) return result;
    }
    return resultOf(shortened(0));
  }

  if (isRecord(data)) {
    const shortened = (record: Record<string, unknown>, omitted: string[]): Answer => ({
      ...answer,
      data: record,
      truncated: {
        ...base,
        note: `${said}: it holds the record without ${listed(omitted)}, each too long to fit.`,
        omittedFields: named(omitted.map((key) => `data.${key}`)),
        next: `To see them whole, ask the user to run \`${how.command}\`, ${raise}.`,
      },
    });
    const room = limit - bytesOf(resultOf(shortened({}, Object.keys(data))));
    const { kept, omitted } = fieldsThatFit(data, room);
    const result = resultOf(shortened(kept, omitted));
    if (bytesOf(result) <= limit) return result;
  }
  // A record keeps its id, which its schema requires (a list never comes here: it ends with no records).
  return resultOf({
    ...answer,
    data: isRecord(data) && data.id !== undefined ? { id: data.id } : {},
    truncated: { ...base, note: `${said}, and no part of it fits.`, next: `Ask the user to run \`${how.command}\`, ${raise}.` },
  });
}

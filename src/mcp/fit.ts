/**
 * A tool result holds its answer twice (structured, and as text, as the MCP spec asks), so a 6 MB record would pass the
 * 10 MiB line past which the SDK's stdio reader drops the session. Each result is held to --max-answer: a list keeps
 * the records that fit, a record the fields that fit whole, and `truncated` says what was left out and how to get it.
 */
import * as z from 'zod/mini';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { described } from '../api/schemas.js';
import { listed } from '../output/listed.js';
import { isObject } from './protocol.js';

/** A tool's structured answer: `data`, and what else the tool answers beside it (`notFound`). */
export type Answer = { data: unknown } & Record<string, unknown>;

/** How a tool's answer is shortened, and how its caller gets the rest. */
export interface Shortening {
  /** `list`: the records of one answer; `batch`: records asked for by id, which can be asked for again; `record`: one record. */
  shape: 'list' | 'batch' | 'record';
  /** The command that prints the whole answer at a terminal, with `--json`. */
  command: string;
  /** For a batch: the tool to call with the ids left out, and how many ids it takes in one call. */
  tool?: string;
  perCall?: number;
  /** For a tool that fetches at most this many records in one call (list_academies). */
  cap?: number;
  /** The call's time limit (--call-timeout), which the server adds. */
  timeLimitMs?: number;
}

/** Ids a tool did not fetch: past its cap, or not before the call's time ran out. */
export interface Unfetched {
  ids: readonly string[];
  reason: 'cap' | 'time_limit';
}

/** What a shortened answer says of itself (`truncated`, in every tool's output schema). */
export const truncatedSchema = () =>
  described(
    z.object({
      note: described(z.string(), 'What was left out, and why, in words'),
      reason: described(
        z.enum(['too_large', 'cap', 'time_limit']),
        "Why: too_large, over this server's limit on one result (--max-answer); cap, past the records the tool fetches in one call; time_limit, not fetched before the call's time limit ran out (--call-timeout)",
      ),
      bytes: z.optional(described(z.number(), 'Bytes the whole answer would have taken (both of its copies); absent when records were not fetched, whose size is unknown')),
      returnedBytes: described(z.number(), 'Bytes of this result as returned (both of its copies)'),
      limit: described(z.number(), "Bytes this server sends in one result at most (gymctl mcp's --max-answer)"),
      returned: z.optional(described(z.number(), 'Records in data')),
      total: z.optional(described(z.number(), 'Records in the whole answer')),
      omittedIds: z.optional(described(z.array(z.string()), 'Ids of the records left out, in order: ask for them in another call')),
      omittedFields: z.optional(described(z.array(z.string()), 'Fields left out, each too long to fit whole, as paths (data.notes, data[0].bio); the first 50')),
      next: described(z.string(), 'How to get what was left out'),
    }),
    "Present only when the answer is not complete: too long for one result, past the tool's cap, or cut short by the time limit",
  );

export type Truncated = z.infer<ReturnType<typeof truncatedSchema>>;

const resultOf = (answer: Answer): CallToolResult => ({ structuredContent: answer, content: [{ type: 'text', text: JSON.stringify(answer) }] });

export const bytesOf = (result: CallToolResult) => Buffer.byteLength(JSON.stringify(result));

/** What a JSON fragment adds to a result: its bytes in the structured copy, and again, escaped, in the text copy. */
const costOf = (fragment: string) => Buffer.byteLength(fragment) + Buffer.byteLength(JSON.stringify(fragment)) - 2;

export const grouped = (n: number) => n.toLocaleString('en-US');

/** Fields named as left out, at most, so the note itself fits. */
const NAMED_FIELDS = 50;

const named = (paths: string[]) => paths.slice(0, NAMED_FIELDS);

/** `a`, `a, b and c`, or `a, b, c, d, e and 45 more` (and nothing for none). */
const listedKeys = (keys: string[]) => (keys.length > 5 ? `${keys.slice(0, 5).join(', ')} and ${grouped(keys.length - 5)} more` : listed(keys));

/** The result of `answer`, its `truncated.returnedBytes` the result's own size, its own digits counted (settled in a few rounds). */
function measured(answer: Answer & { truncated?: Truncated }): CallToolResult {
  let result = resultOf(answer);
  while (answer.truncated && answer.truncated.returnedBytes !== bytesOf(result)) {
    answer = { ...answer, truncated: { ...answer.truncated, returnedBytes: bytesOf(result) } };
    result = resultOf(answer);
  }
  return result;
}

/** The result of `record` with the fields that fit whole, in order, in the room the note naming every field leaves (`build` makes the answer of what is kept), or undefined. */
function withFieldsThatFit(record: Record<string, unknown>, limit: number, build: (kept: Record<string, unknown>, omitted: string[]) => Answer): CallToolResult | undefined {
  const kept: Record<string, unknown> = {};
  const omitted: string[] = [];
  let left = limit - bytesOf(resultOf(build({}, Object.keys(record))));
  for (const [key, value] of Object.entries(record)) {
    const cost = costOf(`${JSON.stringify(key)}:${JSON.stringify(value)},`);
    if (cost <= left) {
      kept[key] = value;
      left -= cost;
    } else omitted.push(key);
  }
  const answer = build(kept, omitted);
  return bytesOf(resultOf(answer)) <= limit ? measured(answer) : undefined;
}

/** The result of `answer` held to `limit` bytes, saying whether it is complete; `unfetched`: ids the tool did not fetch, named after those left out. */
export function fitAnswer(answer: Answer, limit: number, how: Shortening, unfetched: readonly Unfetched[] = []): CallToolResult {
  const whole = resultOf({ ...answer, complete: true });
  const bytes = bytesOf(whole);
  const notFetched = unfetched.flatMap((part) => part.ids);
  if (bytes <= limit && notFetched.length === 0) return whole;
  answer = { ...answer, complete: false };
  const tooLarge = bytes > limit;
  const count = (reason: Unfetched['reason']) => unfetched.filter((part) => part.reason === reason).reduce((sum, part) => sum + part.ids.length, 0);
  const [late, capped] = [count('time_limit'), count('cap')];
  // returnedBytes is measured last (measured()): the limit holds its place meanwhile, as many digits as it can have, or more.
  const base = { reason: late ? 'time_limit' : capped ? 'cap' : 'too_large', ...(notFetched.length === 0 ? { bytes } : {}), returnedBytes: limit, limit } as const;
  const said = [
    late ? `This call's time limit (${(how.timeLimitMs ?? 0) / 1000} s, this server's --call-timeout) ran out before ${grouped(late)} records were fetched` : '',
    capped ? `This tool fetches at most ${grouped(how.cap ?? 0)} records in one call, and ${grouped(capped)} more were listed` : '',
    tooLarge ? `This answer is ${grouped(bytes)} bytes, over the ${grouped(limit)} this server sends in one result` : '',
  ]
    .filter(Boolean)
    .join('; ');
  const raise = "ask the user to raise --max-answer in this MCP server's configuration";
  const { data } = answer;

  if (Array.isArray(data)) {
    const total = data.length + notFetched.length;
    const ids = data.map((item) => (isObject(item) && item.id !== undefined ? String(item.id) : undefined));
    const tool = how.shape === 'batch' ? how.tool : undefined;
    const perCall = how.perCall ? `, at most ${grouped(how.perCall)} at a time` : '';
    const next = !tool
      ? `The rest is not available through this tool: ask the user to run \`${how.command}\`${tooLarge ? `, or ${raise}` : ''}.`
      : [
          `Call ${tool} again with the ids in omittedIds${tooLarge ? ' (fewer at a time)' : perCall}`,
          capped ? `: that is how to page past this tool's cap of ${grouped(how.cap ?? 0)} records, which --max-answer does not lift` : '',
          late ? `${capped ? '; ' : ': '}those the time limit left out were not refused, only not reached in time` : '',
          tooLarge ? `, or ${raise}` : '',
          '.',
        ].join('');
    const shortened = (n: number, first?: { record: Record<string, unknown>; omitted: string[] }): Answer => {
      const records = first ? [first.record, ...data.slice(1, n)] : data.slice(0, n);
      const note: Truncated = {
        ...base,
        note: `${said}: it holds the first ${grouped(n)} of its ${grouped(total)} records${first?.omitted.length ? `, the first without ${listedKeys(first.omitted)}` : ''}.`,
        returned: n,
        total,
        next,
      };
      if (how.shape === 'batch') note.omittedIds = [...ids.slice(n).filter((id): id is string => id !== undefined), ...notFetched];
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
    if (fits > 0) return measured(shortened(fits));
    // Not even the first record fits whole: the first, with the fields that fit.
    const first = data[0];
    const fitted = isObject(first) ? withFieldsThatFit(first, limit, (record, omitted) => shortened(1, { record, omitted })) : undefined;
    return fitted ?? measured(shortened(0));
  }

  if (isObject(data)) {
    const shortened = (record: Record<string, unknown>, omitted: string[]): Answer => ({
      ...answer,
      data: record,
      truncated: {
        ...base,
        note: `${said}: it holds the record without ${listedKeys(omitted)}, each too long to fit.`,
        omittedFields: named(omitted.map((key) => `data.${key}`)),
        next: `To see them whole, ask the user to run \`${how.command}\`, or ${raise}.`,
      },
    });
    const fitted = withFieldsThatFit(data, limit, shortened);
    if (fitted) return fitted;
  }
  // A record keeps its id, which its schema requires (a list never comes here: it ends with no records).
  return measured({
    ...answer,
    data: isObject(data) && data.id !== undefined ? { id: data.id } : {},
    truncated: { ...base, note: `${said}, and no part of it fits.`, next: `Ask the user to run \`${how.command}\`, or ${raise}.` },
  });
}

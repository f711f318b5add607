/**
 * An operation of the API, declared once (a file each, beside this one): its request, its answer's schema, how gymctl
 * shows it. Every surface derives from the list (index.ts). A declaration is plain data: it loads nothing of the CLI.
 */
import type * as z from 'zod/mini';
import type { Id } from '../api/schemas.js';
import type { Column } from '../output/tsv.js';

/** The one path parameter of an operation: an id, as `{academyId}` in its path. */
export interface PathParam {
  /** The placeholder in the path and the OpenAPI parameter: `academyId`. */
  name: string;
  /** What it is, in messages and help: `academy id`. */
  what: string;
  /** Where a caller finds these ids, for those who do not know them (the MCP tools' descriptions, read by a model). */
  found?: string;
}

/** What a declaration's own functions may ask of the API. */
export type Ask = <S extends z.core.$ZodType, L extends boolean>(declaration: OperationDeclaration<S, string, string, L>, id?: Id, signal?: AbortSignal) => Promise<DataOf<S, L>>;

/** Where the path parameter's values come from (the key's academies), for Tab, the picker and the command listing them all; without it, ids only as typed. */
export interface ParamValues<S extends z.core.$ZodType> {
  load(ask: Ask, signal?: AbortSignal): Promise<{ ids: readonly Id[]; none: string }>;
  /** A record's name, shown beside its id (an operation that answers one record); without it, ids are offered alone. */
  label?(record: z.output<S>): string | null | undefined;
  /** The command that shows every one, in the order loaded. */
  all: CommandText;
}

export interface CommandText {
  name: string;
  description: string;
  examples: readonly string[];
}

/** An answer that is a list of records: in formats other than JSON, each record is a row that says which id it answers. */
export interface ListAnswer {
  /** The field that carries the id (not one the API uses): `familyOf`. */
  of: string;
  label: string;
  /** On a terminal, when one id's list is empty, and when a batch's lists all are. */
  empty: { one(id: Id): string; many: string };
}

export interface SandboxRoute {
  /** Lists of the sandbox's data this operation reads, by name, with each item's schema. */
  collections?: Readonly<Record<string, () => z.core.$ZodType>>;
  /** Checks the links between its lists (a message naming the first bad item), once they passed their schemas. */
  check?(data: SandboxCollections): void;
  /** The answer's data for the caller's key, or undefined: not found (or outside the key's scope, which the sandbox does not tell apart). */
  answer(data: SandboxCollections, id: string | undefined, key: SandboxKeyRecord): unknown;
}

/** A key of the sandbox, as an operation's answer sees it. */
export interface SandboxKeyRecord {
  academyIds: readonly Id[];
  [field: string]: unknown;
}

/** The sandbox's lists, by name (each checked with its collection's schema). */
export type SandboxCollections = Readonly<Record<string, readonly unknown[] | undefined>>;

export interface OperationDeclaration<S extends z.core.$ZodType = z.core.$ZodType, M extends string = string, K extends string = string, L extends boolean = boolean> {
  /** The command, and the name `gymctl schema` takes. */
  name: string;
  /** The question it answers, for the help's opening: "what an academy is". */
  question: string;
  /** For the program's description: "academies". */
  topic: string;
  method: 'GET';
  /** The path under the base URL, with `{param}` for the path parameter: `/academies/{academyId}`. */
  path: string;
  param?: PathParam;
  /** One record of the answer (the answer is this, or a list of these: `list`). */
  schema: () => S;
  list: L;
  listAnswer?: ListAnswer;
  /** The client's method (`getAcademy`, the OpenAPI operationId) and the key of `operations` (`academy`). */
  client: { method: M; operation: K; summary: string };
  /** The OpenAPI document's words; the record's schema is the component `component`. */
  openapi: {
    component: string;
    tag: { name: string; description: string };
    summary: string;
    description: string;
    ok: string;
    /** The errors the spec names for it, at the sandbox's status codes. */
    errors: ReadonlyArray<'401' | '404'>;
  };
  command: CommandText & {
    /** The argument's description, for an operation with a path parameter. */
    argument?: string;
    /** Names the items on a batch's progress line: `Fetching academies`. */
    progress?: string;
  };
  /** How a terminal shows a record: as a card (one), and as a table's columns (several; the card's when absent). */
  views: { card: readonly Column<z.output<S>>[]; list?: readonly Column<z.output<S>>[] };
  values?: ParamValues<S>;
  sandbox: SandboxRoute;
}

export type DataOf<S extends z.core.$ZodType, L extends boolean> = L extends true ? Array<z.output<S>> : z.output<S>;

export type Data<D> = D extends OperationDeclaration<infer S, string, string, infer L> ? DataOf<S, L> : never;

/** A declaration, typed with its names and whether it has a path parameter, which type the client's methods. */
export const defineOperation = <S extends z.core.$ZodType, const M extends string, const K extends string, const L extends boolean, P extends PathParam | undefined = undefined>(
  declaration: OperationDeclaration<S, M, K, L> & { param?: P },
): OperationDeclaration<S, M, K, L> & { param: P } => declaration as OperationDeclaration<S, M, K, L> & { param: P };

/** What messages call the thing asked for: `academy 42`, `member 501`; `GET /me` without a parameter. */
export const subjectOf = (declaration: OperationDeclaration, id?: Id): string =>
  declaration.param && id !== undefined ? `${declaration.param.what.replace(/ id$/, '')} ${String(id)}` : `${declaration.method} ${declaration.path}`;

export const pathOf = (declaration: OperationDeclaration, id?: Id): string =>
  declaration.param ? declaration.path.replace(`{${declaration.param.name}}`, encodeURIComponent(String(id))) : declaration.path;

/** The path as a pattern capturing its parameter (digits), for the sandbox's routing. */
export const pathPattern = (declaration: OperationDeclaration): RegExp =>
  new RegExp(`^${declaration.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[A-Za-z]+\\?\}/, '([0-9]+)')}$`);

/** The names of the commands an operation has: its own, and the one that shows every id it lists. */
export const commandNames = (declaration: OperationDeclaration): string[] => [declaration.command.name, ...(declaration.values ? [declaration.values.all.name] : [])];

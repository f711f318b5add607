/**
 * Faults the sandbox can inject, for testing how gymctl (or a script built
 * on it) copes with a server that misbehaves. `gymctl sandbox --fault SPEC`;
 * SPEC is `KIND[=VALUE][*TIMES]`: the fault hits the next TIMES requests
 * (every request when TIMES is left out), then the sandbox answers normally.
 */
export const FAULTS = {
  'rate-limit': '429 Too Many Requests with Retry-After: VALUE seconds (default 1)',
  unavailable: '503 Service Unavailable',
  slow: 'answer after VALUE milliseconds (default 2000)',
  truncated: 'a 200 whose JSON body is cut off halfway',
  html: 'a 500 with an HTML error page, as a proxy sends',
  endless: 'a 200 JSON body that never ends (until the client hangs up, or 60 s)',
  drift: 'a 200 whose body does not match the spec (an id as a string)',
  redirect: '302 to VALUE (default https://elsewhere.invalid/moved)',
  reset: 'drop the connection without an answer',
} as const;

export type FaultKind = keyof typeof FAULTS;

export interface Fault {
  kind: FaultKind;
  value?: string;
  /** How many requests it hits; undefined for every one. */
  times?: number;
}

export function parseFault(spec: string): Fault {
  const match = /^([a-z-]+)(?:=([^*]+))?(?:\*([1-9][0-9]{0,8}))?$/.exec(spec);
  const kind = match?.[1];
  if (!match || !kind || !Object.hasOwn(FAULTS, kind)) {
    throw new Error(`unknown fault ${JSON.stringify(spec)}: expected KIND[=VALUE][*TIMES] with KIND one of ${Object.keys(FAULTS).join(', ')} and TIMES a whole number from 1`);
  }
  const [, , value, times] = match;
  if ((kind === 'rate-limit' || kind === 'slow') && value !== undefined && !/^[0-9]+$/.test(value)) {
    throw new Error(`fault ${kind} takes a whole number, not ${JSON.stringify(value)}`);
  }
  if (kind === 'redirect' && value !== undefined && !URL.canParse(value)) throw new Error(`fault redirect takes a URL, not ${JSON.stringify(value)}`);
  return { kind: kind as FaultKind, ...(value !== undefined ? { value } : {}), ...(times !== undefined ? { times: Number(times) } : {}) };
}

/** Hands out faults in order, each until its count is used up: the next request's, if any is left. */
export function faultPlan(faults: readonly Fault[] = []): () => Fault | undefined {
  const left = faults.map((fault) => ({ ...fault }));
  return () => {
    const fault = left.find((f) => f.times === undefined || f.times > 0);
    if (fault?.times !== undefined) fault.times--;
    return fault;
  };
}

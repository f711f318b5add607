/** Outcomes the entry point turns into exit codes without printing anything more. */
import type { ErrorKind } from './api/errors.js';

/** The user interrupted (Ctrl-C at a prompt); the CLI exits 130. */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
  constructor() {
    super('interrupted');
  }
}

/**
 * Failures were already reported on stderr as they happened (in a batch);
 * only the exit code of the first one, in argument order, is left to set.
 */
export class AlreadyReported extends Error {
  override readonly name = 'AlreadyReported';
  readonly kind: ErrorKind;
  constructor(kind: ErrorKind) {
    super(`failed (${kind})`);
    this.kind = kind;
  }
}

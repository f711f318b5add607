/** Thrown when the user interrupts (Ctrl-C at a prompt); the CLI exits 130. */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
  constructor() {
    super('interrupted');
  }
}

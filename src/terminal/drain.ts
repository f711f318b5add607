/** A stream that may be full (writableNeedDrain), for a writer to wait on instead of buffering without end. */
export interface Reader {
  readonly writableNeedDrain?: boolean;
  once(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
}

/** Settles once `reader` has room again ('drain'), or is gone; undefined when it has room now. */
export function room(reader: Reader | undefined): Promise<void> | undefined {
  if (!reader?.writableNeedDrain) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ['drain', 'close', 'error']) reader.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'close', 'error']) reader.once(event, done);
  });
}

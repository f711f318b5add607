/** Durations as --cache and the timeout settings take them: whole numbers with a unit, run together. */
import { describe, expect, it } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import { durationMs, parseDuration } from '../../src/cache/duration.js';

describe('durationMs', () => {
  it.each([
    ['500ms', 500],
    ['1ms', 1],
    ['90s', 90_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['2d', 172_800_000],
    ['1h30m', 5_400_000],
    ['1d2h3m4s5ms', 93_784_005],
    ['1m1ms', 60_001],
    ['10ms5s', 5_010],
    ['0s', 0],
    ['007s', 7_000],
  ])('%s is %d ms', (text, ms) => {
    expect(durationMs(text)).toBe(ms);
  });

  // A little off a duration: each would be read as something it does not say.
  it.each(['90sx', 'x90s', '90s ', ' 90s', '90', '', 's', 'ms', '1.5h', '-5m', '+5m', '90 s', '1h 30m', '5M', '5S', '5sec', '5min', '1h30', '1y', '1w', 'h1', '5mss', '5m\n'])(
    '%j is not a duration',
    (text) => {
      expect(durationMs(text)).toBeUndefined();
    },
  );
});

describe('parseDuration', () => {
  it('takes from a millisecond up to 365 days', () => {
    expect(parseDuration('1ms', '--cache')).toBe(1);
    expect(parseDuration('365d', '--cache')).toBe(31_536_000_000);
    expect(parseDuration('364d23h59m59s999ms', '--cache')).toBe(31_535_999_999);
  });

  it.each(['0s', '0ms', '366d', '365d1ms', '8761h', '90sx', 'soon', ''])('refuses %j with a usage error naming it and where it came from', (text) => {
    let error: unknown;
    try {
      parseDuration(text, 'GYMCTL_CACHE');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GymctlError);
    expect((error as GymctlError).kind).toBe('usage');
    expect((error as GymctlError).message).toContain(`invalid duration ${JSON.stringify(text)} (from GYMCTL_CACHE)`);
    expect((error as GymctlError).message).toContain('at most 365d');
  });
});

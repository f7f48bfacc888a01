/** Longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 3600_000;

/**
 * When to try again after the `attempts`-th failed attempt: the base delay doubled each time (at
 * most an hour), spread by ±25 % jitter so receivers that come back are not hit all at once.
 * Null once the next try would fall outside the retry window counted from `queuedAt`: give up.
 */
export function nextRetryAt(
  attempts: number,
  queuedAt: Date,
  now: Date,
  settings: { retryBaseMs: number; retryWindowSeconds: number },
  random: () => number = Math.random,
): Date | null {
  const delay = Math.min(settings.retryBaseMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
  const jittered = Math.round(delay * (0.75 + random() * 0.5));
  const at = new Date(now.getTime() + jittered);
  return at.getTime() - queuedAt.getTime() > settings.retryWindowSeconds * 1000 ? null : at;
}

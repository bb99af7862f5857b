// Time left before an interrupt expires, as the card shows it.

/** Milliseconds until `expiresAt` (negative once past), or null without a deadline. */
export function remainingMs(expiresAt: string | undefined, now: number): number | null {
  if (!expiresAt) return null;
  const deadline = Date.parse(expiresAt);
  return Number.isNaN(deadline) ? null : deadline - now;
}

/** "4:05", "1:02:03" or "2 d 3:00:00" for a positive duration (rounded up to the second). */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const ss = String(total % 60).padStart(2, "0");
  const clock = days || hours ? `${hours}:${String(minutes).padStart(2, "0")}:${ss}` : `${minutes}:${ss}`;
  return days ? `${days} d ${clock}` : clock;
}

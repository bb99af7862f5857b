// Date and time values: a local input's value to an ISO 8601 instant with the offset and
// back, and a human label for a chosen time.

const pad = (n: number): string => String(Math.trunc(n)).padStart(2, "0");

function offsetOf(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes >= 0 ? "+" : "-";
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

export const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

/** A `datetime-local` value as an ISO 8601 instant with the browser's offset, or null. */
export function localToIso(value: string): string | null {
  const m = LOCAL_DATETIME.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(date.getTime()) || date.getMonth() !== mo - 1 || date.getDate() !== d) return null;
  // The digits as given (the pattern fixed their widths), whole seconds, the offset at that time.
  return `${value.slice(0, 16)}:${m[6] ?? "00"}${offsetOf(date)}`;
}

/** An ISO instant as a `datetime-local` value in the browser's zone ("" when unreadable). */
export function isoToLocal(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  // The local wall-clock time is the instant moved by the zone's offset, read as UTC.
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A `time` input value ("HH:MM[:SS]") as an RFC 3339 full-time with today's offset. */
export function timeToIso(value: string, today: Date = new Date()): string | null {
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  return `${m[1]}:${m[2]}:${m[3] ?? "00"}${offsetOf(today)}`;
}

/** An instant as the viewer's clock and calendar read it, per `options`; the text itself if it is none. */
export function localWords(iso: string, options: Intl.DateTimeFormatOptions, locale?: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(locale, options);
}

/** A short human label for an instant, e.g. "Tue 2 Dec, 10:00". */
export const labelFor = (iso: string, locale?: string): string =>
  localWords(iso, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" }, locale);

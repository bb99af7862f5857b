/** One suggested meeting time: what the button says and the ISO time the tool gets. */
export interface Slot {
  label: string;
  iso: string;
}

const HOURS = [10, 14, 16];

/** The next three working-day slots after `now` (10:00, 14:00, 16:00 local time). */
export function suggestedSlots(now: Date, count = 3): Slot[] {
  const slots: Slot[] = [];
  const day = new Date(now);
  day.setSeconds(0, 0);
  while (slots.length < count) {
    day.setDate(day.getDate() + 1);
    const weekday = day.getDay();
    if (weekday === 0 || weekday === 6) continue;
    for (const hour of HOURS) {
      if (slots.length === count) break;
      const at = new Date(day);
      at.setHours(hour, 0, 0, 0);
      const label = at.toLocaleString(undefined, {
        weekday: "short",
        day: "numeric",
        month: "short",
        hour: "2-digit",
        minute: "2-digit",
      });
      slots.push({ label, iso: at.toISOString() });
    }
  }
  return slots;
}

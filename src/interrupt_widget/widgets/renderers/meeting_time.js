// A custom renderer for the meeting scheduler: one click on a suggested slot
// approves the meeting at that time; "Another time…" opens the card's general
// form (any time, Approve, Deny with a reason). Plain ES module, no imports;
// every piece of data is set as text. Pass it to InterruptPicker(renderers=...)
// for "schedule_meeting" (interrupt_widget.MEETING_TIME).
//
// Slots come from tool_input.suggested_times (ISO instants) when the agent
// gives them, else the next three weekdays at 10:00 and 14:00 local time.

const SLOT_HOURS = [10, 14];

function pad(n) {
  return String(n).padStart(2, "0");
}

function isoWithOffset(date) {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes >= 0 ? "+" : "-";
  const abs = Math.abs(minutes);
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:00${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

function label(date) {
  return date.toLocaleString(undefined, {
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
  });
}

export function suggestedSlots(interrupt, now = new Date()) {
  const given = interrupt?.metadata?.tool_input?.suggested_times;
  if (Array.isArray(given)) {
    const dates = given
      .map((t) => new Date(t))
      .filter((d) => typeof d.getTime === "function" && !Number.isNaN(d.getTime()));
    if (dates.length) return dates.map((d) => ({ iso: isoWithOffset(d), label: label(d) }));
  }
  const slots = [];
  const day = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  while (slots.length < 3 * SLOT_HOURS.length) {
    day.setDate(day.getDate() + 1);
    if (day.getDay() === 0 || day.getDay() === 6) continue;
    for (const hour of SLOT_HOURS) {
      const at = new Date(day.getFullYear(), day.getMonth(), day.getDate(), hour, 0);
      slots.push({ iso: isoWithOffset(at), label: label(at) });
    }
  }
  return slots;
}

export function render({ interrupt, resolve, el, showForm }) {
  const doc = el.ownerDocument;
  const group = doc.createElement("div");
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", "Suggested meeting times");
  group.style.cssText = "display:flex;flex-wrap:wrap;gap:6px;margin:4px 0";
  const status = doc.createElement("p");
  status.setAttribute("role", "status");
  status.style.margin = "0";
  const buttons = [];

  async function send(payload) {
    for (const b of buttons) b.disabled = true;
    status.textContent = "Sending…";
    const verdict = await resolve(payload);
    if (verdict.ok) {
      status.textContent = "";
      return;
    }
    status.textContent = verdict.error || "The answer was refused.";
    for (const b of buttons) b.disabled = false;
  }

  function button(text, onClick) {
    const b = doc.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.addEventListener("click", onClick);
    buttons.push(b);
    return b;
  }

  for (const slot of suggestedSlots(interrupt)) {
    group.appendChild(
      button(slot.label, () => send({ approved: true, chosen_time: slot.iso, chosen_label: slot.label })),
    );
  }
  const actions = doc.createElement("div");
  actions.style.cssText = "display:flex;flex-wrap:wrap;gap:6px";
  if (typeof showForm === "function") {
    const other = button("Another time…", () => {
      other.remove();
      showForm();
    });
    actions.appendChild(other);
  }
  actions.appendChild(button("Don't schedule", () => send({ approved: false })));
  el.append(group, actions, status);
  return () => el.replaceChildren();
}

// The meeting scheduler's web page: CopilotKit's own chat and interrupt hook, talking
// straight to `python -m interrupt_widget serve` (no CopilotKit runtime in between).
import { HttpAgent } from "@ag-ui/client";
import {
  CopilotChat,
  CopilotKitProvider,
  type Interrupt,
  type InterruptRenderProps,
  useInterrupt,
} from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import { StrictMode, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";
import { type Slot, suggestedSlots } from "./slots";

/** `?agent=URL` (default: `serve`'s own default address) and an optional `?token=`. */
function agentFromPage(): HttpAgent {
  const params = new URLSearchParams(window.location.search);
  const url = params.get("agent") ?? "http://127.0.0.1:8000/";
  const token = params.get("token");
  return new HttpAgent({ url, headers: token ? { Authorization: `Bearer ${token}` } : {} });
}

function describe(interrupt: Interrupt | null): string {
  const input = interrupt?.metadata?.tool_input;
  if (input && typeof input === "object") {
    const { topic, attendee } = input as { topic?: unknown; attendee?: unknown };
    const withWhom = typeof attendee === "string" && attendee ? ` with ${attendee}` : "";
    if (typeof topic === "string") return `Schedule "${topic}"${withWhom}?`;
  }
  return interrupt?.message ?? "The agent asks for your answer.";
}

function TimeSlots({ interrupt, resolve, cancel }: InterruptRenderProps): React.ReactElement {
  const slots = useMemo(() => suggestedSlots(new Date()), []);
  const [answered, setAnswered] = useState<string | null>(null);
  const choose = (slot: Slot): void => {
    setAnswered(`Booking ${slot.label}…`);
    void resolve({ approved: true, chosen_time: slot.iso, chosen_label: slot.label });
  };
  // Text only: the interrupt's message and arguments come from the agent.
  return (
    <section className="slots" aria-label="Pick a time">
      <p className="slots-question">{describe(interrupt)}</p>
      {answered ? (
        <p className="slots-answered">{answered}</p>
      ) : (
        <div className="slots-buttons">
          {slots.map((slot) => (
            <button
              key={slot.iso}
              type="button"
              className="slot"
              data-time={slot.iso}
              onClick={() => choose(slot)}
            >
              {slot.label}
            </button>
          ))}
          <button
            type="button"
            className="slot-cancel"
            onClick={() => {
              setAnswered("Cancelled.");
              void cancel();
            }}
          >
            Cancel
          </button>
        </div>
      )}
    </section>
  );
}

function Scheduler(): React.ReactElement {
  useInterrupt({
    enabled: (event) => (event.value as Interrupt | null)?.reason === "tool_call",
    render: (props) => <TimeSlots {...props} />,
  });
  return <CopilotChat />;
}

function App(): React.ReactElement {
  const agents = useMemo(() => ({ default: agentFromPage() }), []);
  return (
    <CopilotKitProvider agents__unsafe_dev_only={agents}>
      <main className="page">
        <h1>Meeting scheduler</h1>
        <p className="hint">Try: “Book a call with Alice about the Q3 roadmap”.</p>
        <div className="chat">
          <Scheduler />
        </div>
      </main>
    </CopilotKitProvider>
  );
}

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// Drives `python -m interrupt_widget serve` with the official AG-UI TypeScript
// client through calls whose arguments JavaScript writes back differently from
// Python (integral floats, exponents, -0.0, integers beyond 2**53, escaped and
// decomposed unicode): approve, cancel, an unknown interruptId beside a valid
// entry, and an edit sent as `editedArgs`.
//
// Usage: node json_values.mjs <url>, with AGUI_TOKEN and SCENARIOS set; SCENARIOS
// is a JSON object {name: {prompt, answer}} where answer is "approve", "cancel",
// "unknown", {"edit": {...changed arguments}} or {"payload": {...}}, an answer sent
// exactly as given (read by JSON.parse, so a "__proto__" key stays an own field).
// Prints one JSON object on stdout ({name: report}) for the calling test to check.
import { buildResumeArray, HttpAgent } from "@ag-ui/client";

const url = process.argv[2];
const token = process.env.AGUI_TOKEN;
const scenarios = JSON.parse(process.env.SCENARIOS ?? "{}");
if (!url) {
  console.error("usage: node json_values.mjs <url>");
  process.exit(2);
}
const headers = token ? { Authorization: `Bearer ${token}` } : {};

async function run(agent, params) {
  const seen = { outcome: null, error: null, toolResults: [] };
  const subscriber = {
    onRunFinishedEvent({ outcome }) {
      seen.outcome = outcome;
    },
    onRunErrorEvent({ event }) {
      seen.error = { code: event.code ?? null, message: event.message };
    },
    onToolCallResultEvent({ event }) {
      seen.toolResults.push({ toolCallId: event.toolCallId, content: event.content });
    },
  };
  try {
    await agent.runAgent(params, subscriber);
  } catch (error) {
    if (!seen.error) seen.error = { code: null, message: String(error?.message ?? error) };
  }
  return seen;
}

function answersFor(interrupts, answer) {
  const payload = (interrupt) => {
    if (answer === "cancel") return { status: "cancelled" };
    if (typeof answer === "object" && answer.payload) return { status: "resolved", payload: answer.payload };
    if (typeof answer === "object" && answer.edit) {
      // editedArgs replaces the arguments in full: the proposal as this client read it, changed.
      const editedArgs = { ...interrupt.metadata.tool_input, ...answer.edit };
      return { status: "resolved", payload: { approved: true, editedArgs } };
    }
    return { status: "resolved", payload: { approved: true } };
  };
  return Object.fromEntries(interrupts.map((i) => [i.id, payload(i)]));
}

async function scenario(name, { prompt, answer }) {
  const agent = new HttpAgent({ url, headers, threadId: `values-${name}` });
  agent.addMessage({ id: `user-${name}`, role: "user", content: prompt });
  const first = await run(agent);
  const interrupts = agent.pendingInterrupts;
  const resume = buildResumeArray(interrupts, answersFor(interrupts, answer));
  if (answer === "unknown") resume.push({ interruptId: "approve-nobody", status: "cancelled" });
  const resumed = await run(agent, { resume });
  return {
    first: { outcome: first.outcome, error: first.error },
    interrupts: interrupts.map((i) => ({
      id: i.id,
      message: i.message ?? null,
      // What this client holds after JSON.parse, written again as it would send it.
      toolInput: JSON.stringify(i.metadata?.tool_input ?? null),
      editable: Boolean(i.responseSchema?.properties?.editedArgs),
    })),
    resumed,
  };
}

const report = {};
for (const [name, spec] of Object.entries(scenarios)) report[name] = await scenario(name, spec);
console.log(JSON.stringify(report));

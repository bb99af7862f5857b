// Drives `python -m interrupt_widget serve` with the official AG-UI TypeScript
// client through each way the Agents SDK ends a run: start a run, receive the
// interrupt, resume with approve or deny, and report what the client got: the
// outcome or the RUN_ERROR, the text it streamed (TEXT_MESSAGE_CONTENT) and the
// last assistant message it holds.
//
// Usage: node run_endings.mjs <url>, with AGUI_TOKEN and SCENARIOS set; SCENARIOS
// is a JSON object {name: {threadId, prompt, answer}}, answer "approve" or "deny".
// Prints one JSON object on stdout ({name: report}) for the calling test to check.
import { buildResumeArray, HttpAgent } from "@ag-ui/client";

const url = process.argv[2];
const token = process.env.AGUI_TOKEN;
const scenarios = JSON.parse(process.env.SCENARIOS ?? "{}");
if (!url) {
  console.error("usage: node run_endings.mjs <url>");
  process.exit(2);
}
const headers = token ? { Authorization: `Bearer ${token}` } : {};

function lastAssistantText(messages) {
  const texts = messages.filter((m) => m.role === "assistant" && typeof m.content === "string" && m.content);
  return texts.length ? texts[texts.length - 1].content : null;
}

async function run(agent, params) {
  const seen = { outcome: null, error: null, streamed: "", toolResults: [] };
  const subscriber = {
    onRunFinishedEvent({ outcome }) {
      seen.outcome = outcome;
    },
    onRunErrorEvent({ event }) {
      seen.error = { code: event.code ?? null, message: event.message };
    },
    onTextMessageContentEvent({ event }) {
      seen.streamed += event.delta;
    },
    onToolCallResultEvent({ event }) {
      seen.toolResults.push(event.content);
    },
  };
  try {
    await agent.runAgent(params, subscriber);
  } catch (error) {
    if (!seen.error) seen.error = { code: null, message: String(error?.message ?? error) };
  }
  return seen;
}

async function scenario({ threadId, prompt, answer }) {
  const agent = new HttpAgent({ url, headers, threadId });
  agent.addMessage({ id: `user-${threadId}`, role: "user", content: prompt });
  const first = await run(agent);
  const interrupts = agent.pendingInterrupts;
  const payload = { approved: answer === "approve" };
  const answers = Object.fromEntries(interrupts.map((i) => [i.id, { status: "resolved", payload }]));
  const resumed = interrupts.length ? await run(agent, { resume: buildResumeArray(interrupts, answers) }) : null;
  return { first, interrupts: interrupts.length, resumed, finalText: lastAssistantText(agent.messages) };
}

const report = {};
for (const [name, spec] of Object.entries(scenarios)) report[name] = await scenario(spec);
console.log(JSON.stringify(report));

// A probe client adapter (docs/probe.md §2) on acpx's runtime library:
// acpx/runtime spawns the agent command and is the ACP client; this host
// advertises form elicitation and answers each elicitation/create as the
// scripted user in its _meta says.
//
//   node host.mjs AGENT_COMMAND_LINE   (one argument: what {agent} gives)
//   node host.mjs AGENT ARGS...        (an argv, for trying it by hand)
//
// It sends one prompt, "hello" (or $ACPX_HOST_PROMPT, which the recorded
// sessions of interop/traces use to make an agent ask), and exits 0 when
// the turn ends, whatever
// the stop reason; 1 when the turn fails, 2 for bad arguments. The
// agent's message text goes to stderr.
import { createAcpRuntime, createAgentRegistry } from "acpx/runtime";

const args = process.argv.slice(2);
if (args.length === 0) {
  console.error("usage: node host.mjs AGENT_COMMAND_LINE | AGENT ARGS...");
  process.exit(2);
}
// One argument is a command line, which acpx splits as a shell would.
const agentCommand = args.length === 1 ? args[0] : args;

// answer follows the scripted-user instruction of one elicitation/create.
// acpx answers a handler that throws with a cancel, never with a JSON-RPC
// error, so an instruction that cannot be followed (never sent by the
// harness, docs/probe.md §2.2) is cancelled with the reason in _meta.
function answer(request) {
  const user = request._meta?.["acpconform/user"];
  if (user === undefined || user === null) return { action: "cancel" };
  const choice = request.requestedSchema?.properties?.choice;
  switch (user.action) {
    case "decline":
    case "cancel":
      if (!("pick" in user) && !("content" in user)) return { action: user.action };
      break;
    case "accept": {
      // Any form but a typed choice is accepted with the instruction's
      // content, exactly as given (revision 2, docs/probe.md §2.5).
      const typedChoice = Object.keys(request.requestedSchema?.properties ?? {}).length === 1 && choice !== undefined;
      if (!typedChoice && !("pick" in user) && user.content !== null && typeof user.content === "object" && !Array.isArray(user.content)) {
        return { action: "accept", content: user.content };
      }
      const options = Array.isArray(choice?.oneOf) ? choice.oneOf : [];
      const picked =
        user.pick === "default"
          ? options.find((option) => option.const === choice.default)
          : Number.isInteger(user.pick)
            ? options[user.pick]
            : undefined;
      if (picked) return { action: "accept", content: { choice: picked.const } };
      break;
    }
  }
  return { action: "cancel", _meta: { message: `cannot follow the instruction ${JSON.stringify(user)}` } };
}

// Sessions live in memory: nothing is written under ~/.acpx.
const records = new Map();
const sessionStore = {
  async load(id) {
    return records.has(id) ? structuredClone(records.get(id)) : undefined;
  },
  async save(record) {
    records.set(record.acpxRecordId, structuredClone(record));
  },
};

const runtime = createAcpRuntime({
  cwd: process.cwd(),
  sessionStore,
  agentRegistry: createAgentRegistry({ overrides: { subject: agentCommand } }),
  permissionMode: "approve-all",
  nonInteractivePermissions: "deny",
  elicitationModes: ["form"],
});

let code = 0;
try {
  const handle = await runtime.ensureSession({ sessionKey: "acpconform", agent: "subject", mode: "oneshot" });
  const turn = runtime.startTurn({
    handle,
    text: process.env.ACPX_HOST_PROMPT ?? "hello",
    mode: "prompt",
    requestId: "acpconform-1",
    onElicitation: async (request) => answer(request),
  });
  for await (const event of turn.events) {
    if (event.type === "text_delta") process.stderr.write(event.text + "\n");
  }
  const result = await turn.result;
  if (result.status === "failed") {
    console.error(`the turn failed: ${result.error.message}`);
    code = 1;
  } else {
    console.error(`the turn ended: ${result.status}, ${result.stopReason}`);
  }
} catch (err) {
  console.error(`acpx runtime: ${err?.stack ?? err}`);
  code = 1;
}
await runtime.shutdown().catch((err) => console.error(`shutdown: ${err}`));
process.exit(code);
